"""The clean tree: kept files, square, RGB JPEG, at ``OUT/<team>/<class>/<phash>.jpg``.

Per image (the study's recipe): convert to RGB, scale so the *shorter* side is
``size`` with bicubic resampling (small images are upscaled), centre-crop the
longer side to ``size``; square images go straight to ``size x size``. JPEG
quality 95. No EXIF transpose unless asked (the study's hashes and crops were
on pixels as stored). Two rules for the long side and the crop offset:

* ``paper`` (default; the paper only says "shorter side to 336, centre crop"):
  long' = round(long * size / short), offset = (long' - size) // 2;
* ``official`` (the public notebook ``3.build_resized_dataset.ipynb``, bit for
  bit): long' = int(long * size / short) (truncated), and the crop box is given
  to Pillow at the float offset (long' - size) / 2, which Pillow rounds half
  to even. The two rules give different pixels for many sizes (one column
  more or less before the crop, or a crop one pixel over).

Every output goes through a temporary file and a no-overwrite rename. Before
anything is written, the output folder, every output file and the manifest
are checked by ``agrieval.scoring.writing.policy``: OUT may not be, or be inside, a
catalogued root (derivatives next to the originals would be catalogued as new
photos); two sources mapping to one output path (also up to case and Unicode
normalisation) is an error naming both; an existing output or manifest is
refused unless ``--overwrite``. ``resume`` accepts outputs already present
when they decode at the right size (and rewrites the manifest); anything else
in the way is an error.

Decoded pixels are bounded per worker as in the catalog (``max_pixels``,
``probe.bound_pixels``): a larger JPEG is decoded reduced by 1/2, 1/4 or 1/8
before the resize, another format larger than the cap is an ``error`` row.
"""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pandas as pd
from PIL import Image, ImageOps

from agrieval.data_tools._heif import HEIF_ERROR  # noqa: F401 - importing registers the HEIC opener
from agrieval.data_tools._parallel import pmap
from agrieval.data_tools._untrusted_images import ImageUnreadable, decode_image
from agrieval.data_tools.catalog import check_unchanged, source_file
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.probe import DEFAULT_MAX_PIXELS, bound_pixels
from agrieval.data_tools.tables import table_row, write_table
from agrieval.data_tools.versions import write_versions
from agrieval.scoring.runtime.atomic import remove_leftover_temporaries, write_bytes
from agrieval.scoring.text.file_names import display_name, unescape_name
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused
from agrieval.scoring.writing.table_paths import inside

_MANIFEST_COLUMNS = ["source_root", "source_path", "team", "class", "phash", "bytes", "mtime_ns",
                    "output_path", "out_width", "out_height", "status", "error"]
_JPEG_QUALITY = 95


_RESIZE_RULES = ("paper", "official")


def _square_resize(img: Image.Image, size: int, rule: str = "paper") -> Image.Image:
    """Shorter side to ``size`` (bicubic), then centre crop to ``size x size`` (``rule``: module docstring)."""
    if rule not in _RESIZE_RULES:
        raise DataError("bad_option", f"resize rule must be one of {_RESIZE_RULES}, got {rule!r}")
    w, h = img.size
    if w == h:
        return img.resize((size, size), Image.Resampling.BICUBIC)
    if rule == "official":  # the notebook's own statements, so that Pillow rounds the float box as it did there
        if w < h:
            tmp = img.resize((size, int(h * size / w)), Image.Resampling.BICUBIC)
            left, top = 0, (tmp.height - size) / 2
        else:
            tmp = img.resize((int(w * size / h), size), Image.Resampling.BICUBIC)
            left, top = (tmp.width - size) / 2, 0
        return tmp.crop((left, top, left + size, top + size))
    scale = size / min(w, h)
    nw, nh = max(size, round(w * scale)), max(size, round(h * scale))
    img = img.resize((nw, nh), Image.Resampling.BICUBIC)
    left, top = (nw - size) // 2, (nh - size) // 2
    return img.crop((left, top, left + size, top + size))


def _resize_task(task: tuple[str, str, int, bool, str, int, bool]) -> tuple[int, int, str]:
    src, dst, size, transpose, rule, max_pixels, overwrite = task
    try:
        def resized(img: Image.Image) -> Image.Image:
            bound_pixels(img, max_pixels)
            if transpose:
                img = ImageOps.exif_transpose(img)
            return _square_resize(img.convert("RGB"), size, rule)

        out = decode_image(src, resized, own_pixel_cap=True)  # the image rule: a bomb is refused, never decoded
        # Encoded in memory, then written by us: Pillow writing to the file itself does not report a short
        # write on a full disk. write_bytes checks the size on disk, the decode checks the pixels, both
        # before the rename.
        buf = io.BytesIO()
        out.save(buf, "JPEG", quality=_JPEG_QUALITY)
        write_bytes(dst, buf.getvalue(), overwrite=overwrite, check=lambda tmp: _check_written(tmp, size))
        return size, size, ""
    except FileExistsError:
        return 0, 0, display_name(f"{dst} appeared while resizing; not overwritten")
    except ImageUnreadable as exc:
        return 0, 0, display_name(f"{exc.code}: {exc.message}")
    except Exception as exc:  # noqa: BLE001 - one bad file is a manifest row, not a crash
        return 0, 0, display_name(f"{type(exc).__name__}: {exc}")


def _written_jpeg_ok(path: Path, size: int) -> bool:
    """``path`` decodes whole as a ``size`` x ``size`` JPEG (a truncated file does not: LOAD_TRUNCATED_IMAGES is
    off)."""
    try:
        with Image.open(path) as img:
            img.load()
            return img.size == (size, size) and img.format == "JPEG"
    except Exception:  # noqa: BLE001 - any decoder failure means: not a complete output
        return False


def _check_written(tmp: Path, size: int) -> None:
    if not _written_jpeg_ok(tmp, size):
        raise OSError(errno.EIO, f"the JPEG written for this file does not decode back whole at {size}x{size} "
                                 "(a full disk?); it was not kept")


def _select_sources(df: pd.DataFrame) -> pd.DataFrame:
    """Rows to resize: ``keep`` ones of a dedup table, readable ones of a plain catalog."""
    rows = df[df["keep"]] if "keep" in df.columns else df[df["readable"]]
    unknown = rows[rows["class"] == ""]
    if len(unknown):
        folders = sorted(set(unknown["class_raw"]))
        raise DataError("unknown_class", f"{len(unknown)} file(s) in class folders the class map does not know: "
                        f"{folders} (e.g. {unknown['path'].iloc[0]}); add them with --class-map and re-run "
                        "the catalog")
    rows = rows.assign(row_where=[table_row(df, i) for i in rows.index])  # the input line, for messages
    return rows.sort_values("path", kind="stable").reset_index(drop=True)


def resize_tree(catalog_or_dedup_df: pd.DataFrame, out_root, *, size: int = 336, resume: bool = False,
                progress: bool = True, workers: int | None = None, exif_transpose: bool = False,
                manifest: str | Path | None = None, rule: str = "paper", max_pixels: int = DEFAULT_MAX_PIXELS,
                plan: OutputPlan | None = None) -> pd.DataFrame:
    """Write the clean tree under ``out_root``; return (and write) the source -> output manifest.

    The manifest goes to ``manifest`` or ``out_root/resize_manifest.csv``.
    ``rule`` is ``paper`` or ``official`` (module docstring). ``plan`` carries
    ``--overwrite`` and the files the command reads.
    """
    if size < 8:
        raise DataError("bad_option", f"--size must be at least 8, got {size}")
    if rule not in _RESIZE_RULES:
        raise DataError("bad_option", f"resize rule must be one of {_RESIZE_RULES}, got {rule!r}")
    if max_pixels < 1:
        raise DataError("bad_option", f"--max-pixels must be at least 1, got {max_pixels}")
    rows = _select_sources(catalog_or_dedup_df)
    plan = plan or OutputPlan()
    plan.add_sources(*(unescape_name(r) for r in sorted(set(rows["root"]))))
    out_root = plan.claim_dir(out_root, what="resize output folder")
    manifest = Path(manifest) if manifest else out_root / "resize_manifest.csv"
    again = "pass --resume to continue an earlier run, or --overwrite to replace its files"
    plan.claim(manifest, what="resize manifest", may_exist=resume, hint=again)
    # Every output path from the row's own cells, refused (unsafe_path) before anything is written if a
    # cell would lead out of OUT; ``outputs`` keep the escaped text for the manifest.
    dsts = [inside(out_root, t, c, h, suffix=".jpg", where=w, columns=("team", "class", "phash"))
            for t, c, h, w in zip(rows["team"], rows["class"], rows["phash"], rows["row_where"])]
    sources = [source_file(r, p, where=w) for r, p, w in zip(rows["root"], rows["path"], rows["row_where"])]
    outputs = [f"{t}/{c}/{h}.jpg" for t, c, h in zip(rows["team"], rows["class"], rows["phash"])]
    rows = rows.assign(output_path=outputs)
    clash = rows[rows.duplicated("output_path", keep=False)]
    if len(clash):
        first = clash.sort_values(["output_path", "path"], kind="stable").head(2)
        a, b = (source_file(r, p) for r, p in zip(first["root"], first["path"]))
        raise DataError("name_collision", f"{a} and {b} would both be written to "
                        f"{out_root / first['output_path'].iloc[0]} (same team, class and pHash); run dedup "
                        f"first ({clash['output_path'].nunique()} such output name(s))")
    for r in rows.itertuples():
        check_unchanged(r, where=r.row_where)

    status = ["todo"] * len(rows)
    for k, dst in enumerate(dsts):
        plan.claim(dst, what=f"resized copy of {rows.at[k, 'path']}", may_exist=resume, hint=again)
        if resume and (dst.exists() or dst.is_symlink()):
            if dst.is_symlink() or not _written_jpeg_ok(dst, size):
                raise OutputRefused("output_exists", f"{dst} is not a {size}x{size} JPEG from an earlier run; "
                                    "refusing to overwrite it (move it away, or pass --overwrite without --resume)",
                                    path=dst)
            status[k] = "reused"
    todo = [k for k, s in enumerate(status) if s == "todo"]
    if resume or plan.overwrite:  # a killed run's temporaries of these outputs: not done, and ours to remove
        remove_leftover_temporaries(dsts[k] for k in todo)
    tasks = [(str(sources[k]), str(dsts[k]), size, exif_transpose, rule, max_pixels, plan.overwrite) for k in todo]
    results = {k: res for k, res in zip(todo, pmap(_resize_task, tasks, workers=workers, desc="resize",
                                                   progress=progress), strict=True)}
    records = []
    for k, r in enumerate(rows.itertuples()):
        w, h, err = results.get(k, (size, size, ""))
        records.append({
            "source_root": r.root, "source_path": r.path, "team": r.team, "class": rows.at[k, "class"],
            "phash": r.phash, "bytes": r.bytes, "mtime_ns": r.mtime_ns,
            "output_path": outputs[k], "out_width": w, "out_height": h,
            "status": "error" if err else ("reused" if status[k] == "reused" else "written"), "error": err,
        })
    out = pd.DataFrame(records, columns=_MANIFEST_COLUMNS)
    out.attrs["out_root"] = str(out_root)
    write_table(out, manifest)
    write_versions(manifest, "resize")  # Pillow's resampling and JPEG encoder made these pixels
    return out


def summarize_resize(manifest: pd.DataFrame) -> str:
    counts = manifest["status"].value_counts()
    lines = [f"{len(manifest)} kept files -> {manifest.attrs.get('out_root', 'OUT')}: "
             + ", ".join(f"{k}={counts.get(k, 0)}" for k in ("written", "reused", "error"))]
    for r in manifest[manifest["status"] == "error"].itertuples():
        lines.append(f"error: {r.source_path}: {r.error}")
    return "\n".join(lines)
