"""A small synthetic multi-team pool, laid out like the real one, to try every command on.

``OUT/<team>/<class folder>/[<sub-category>/]<image>``: each team photographs
all six classes; a class is a procedural "plant" (leaf colour, leaf shape and
orientation spread, bark stripes) so a classifier can learn it, and each team
has its own camera look (colour cast, exposure, noise, aspect ratio, file
naming, EXIF device or none), so cross-team validation has a gap to measure.
The quirks of real team folders are planted on purpose: plural and accented
class folders (``Chênes``, ``Faux poivriers``), ``Feuilles``/``Tronc``
sub-categories, a PNG, a HEIC (when pillow-heif can encode), cross-team
duplicates (a byte copy and a re-encoded copy), and a truncated JPEG.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from agrieval.data_tools.errors import DataError
from agrieval.scoring.runtime.atomic import write_bytes

# Imported inside functions, so that importing this module loads only what it needs: pillow_heif (heavy or optional).

CLASSES = ("caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu")

# How each team spelled its class folders (the normalisation map must undo this).
_FOLDER_STYLES = (
    {c: c for c in CLASSES},
    {"caroubier": "Caroubiers", "chene": "Chênes", "faux_poivrier": "Faux poivriers", "frene": "Frênes",
     "pistachier": "Pistachiers", "tipu": "Tipus"},
    {"caroubier": "Caroubier", "chene": "Chêne", "faux_poivrier": "Faux-poivrier", "frene": "Frêne",
     "pistachier": "Pistachier", "tipu": "Tipu"},
    {"caroubier": "CAROUBIER", "chene": "chenes", "faux_poivrier": "faux_poivrier", "frene": "frenes",
     "pistachier": "pistachier", "tipu": "tipu"},
)
_DEVICES = (("samsung", "SM-A515F"), ("Apple", "iPhone 12"), None, ("Xiaomi", "Redmi Note 8"))
_NAMING = ("IMG_{:04d}.jpg", "IMG_{:04d}.JPG", "DSC{:05d}.jpg", "{:04d}.jpeg")

# class -> (leaf RGB, leaf elongation, orientation spread in radians, bark stripe frequency)
_CLASS_LOOK = {
    "caroubier": ((40, 95, 35), 1.6, 0.3, 3.0),
    "chene": ((70, 110, 40), 1.2, 1.5, 9.0),
    "faux_poivrier": ((120, 150, 60), 5.0, 0.4, 5.0),
    "frene": ((60, 140, 70), 2.5, 1.0, 14.0),
    "pistachier": ((150, 90, 50), 1.8, 3.0, 2.0),
    "tipu": ((180, 170, 60), 3.5, 2.0, 7.0),
}


def _team_look(team: int, rng: np.random.Generator) -> dict:
    return {"cast": 1.0 + rng.uniform(-0.15, 0.15, 3), "gain": rng.uniform(0.8, 1.2),
            "noise": rng.uniform(2, 12), "aspect": (4 / 3, 3 / 4, 16 / 9, 1.0)[team % 4]}


def _plant(cls: str, look: dict, size: int, rng: np.random.Generator) -> Image.Image:
    colour, elong, spread, stripes = _CLASS_LOOK[cls]
    aspect = look["aspect"]
    h, w = (size, int(round(size * aspect))) if aspect >= 1 else (int(round(size / aspect)), size)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.array([120, 150, 200], np.float32) * rng.uniform(0.7, 1.1)  # sky
    img = np.broadcast_to(base, (h, w, 3)).copy()
    bark = (np.sin(xx / w * stripes * np.pi + rng.uniform(0, 6)) > 0)[..., None]
    trunk = (np.abs(xx - w * rng.uniform(0.4, 0.6)) < w * 0.08)[..., None]
    img = np.where(trunk, np.where(bark, 90.0, 60.0) * np.array([1.0, 0.8, 0.6], np.float32), img)
    theta0 = rng.uniform(0, np.pi)
    for _ in range(14):
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        r = size * rng.uniform(0.06, 0.12)
        t = theta0 + rng.normal(0, spread)
        u = (xx - cx) * np.cos(t) + (yy - cy) * np.sin(t)
        v = -(xx - cx) * np.sin(t) + (yy - cy) * np.cos(t)
        leaf = ((u / (r * elong)) ** 2 + (v / r) ** 2 < 1.0)[..., None]
        shade = np.array(colour, np.float32) * rng.uniform(0.8, 1.2)
        img = np.where(leaf, shade, img)
    img = img * look["cast"] * look["gain"] + rng.normal(0, look["noise"], img.shape)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")


def _jpeg(img: Image.Image, device, quality: int = 90) -> bytes:
    buf = io.BytesIO()
    kw = {}
    if device is not None:
        exif = Image.Exif()
        exif[0x010F], exif[0x0110] = device
        kw["exif"] = exif.tobytes()
    img.save(buf, "JPEG", quality=quality, **kw)
    return buf.getvalue()


def _heic(img: Image.Image) -> bytes | None:
    try:
        import pillow_heif
    except ImportError:
        return None
    try:
        pillow_heif.register_heif_opener()
        buf = io.BytesIO()
        img.save(buf, "HEIF", quality=90)
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - no encoder in this build: the pool simply has no HEIC
        return None


def make_demo_pool(out_dir: Path, *, teams: int = 4, per_class: int = 6, size: int = 96, seed: int = 0) -> Path:
    """Write the pool to ``out_dir`` (which must be absent or empty) and return it.

    Files: ``teams * 6 * per_class`` photos (one of them a PNG, one a HEIC when
    pillow-heif can encode, one truncated), plus 3 cross-team duplicates.
    """
    out_dir = Path(out_dir)
    if teams < 2 or per_class < 2 or size < 32:
        raise DataError("bad_option", "demo pool needs teams >= 2, per_class >= 2 and size >= 32")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise DataError("output_exists", f"{out_dir} is not empty; the demo pool is written to a new folder")
    rng = np.random.default_rng(seed)
    written: dict[tuple[int, str], list[Path]] = {}
    for t in range(teams):
        team = f"team{t + 1:02d}"
        look = _team_look(t, rng)
        style = _FOLDER_STYLES[t % len(_FOLDER_STYLES)]
        device = _DEVICES[t % len(_DEVICES)]
        for c_index, cls in enumerate(CLASSES):
            folder = out_dir / team / style[cls]
            for k in range(per_class):
                number = 1 + c_index * per_class + k
                sub = ""
                if t % len(_FOLDER_STYLES) == 2 and cls == "chene":  # a team that split leaves and trunks
                    sub = "Feuilles" if k % 2 == 0 else "Tronc"
                path = folder / sub / _NAMING[t % len(_NAMING)].format(number)
                img = _plant(cls, look, size, rng)
                data = _jpeg(img, device if k % 3 else None)  # a third of the files lost their EXIF
                if t == 2 % teams and c_index == 1 and k == 1:
                    path = path.with_suffix(".png")
                    buf = io.BytesIO()
                    img.save(buf, "PNG")
                    data = buf.getvalue()
                if t == 3 % teams and c_index == 2 and k == 1:
                    heic = _heic(img)
                    if heic is not None:
                        path, data = path.with_suffix(".heic"), heic
                if t == teams - 1 and c_index == 5 and k == per_class - 1:
                    data = data[: len(data) // 2]  # a transfer that stopped half way
                write_bytes(path, data, overwrite=False)
                written.setdefault((t, cls), []).append(path)
    # Cross-team duplicates: the same photo handed in by two teams.
    first = written[(0, "frene")][0]
    copies = [
        (first, out_dir / "team02" / _FOLDER_STYLES[1]["frene"] / "IMG_9001.JPG", None),
        (written[(0, "tipu")][1], out_dir / "team02" / _FOLDER_STYLES[1]["tipu"] / "IMG_9002.JPG", None),
        (written[(0, "caroubier")][-1], out_dir / f"team{teams:02d}" /
         _FOLDER_STYLES[(teams - 1) % len(_FOLDER_STYLES)]["caroubier"] / "9003.jpeg", 95),
    ]
    for src, dst, requality in copies:
        data = src.read_bytes()
        if requality is not None:  # re-encoded: other bytes, same picture
            with Image.open(io.BytesIO(data)) as im:
                data = _jpeg(im.convert("RGB"), None, quality=requality)
        write_bytes(dst, data, overwrite=False)
    return out_dir
