"""One image rule for every baseline: PlantCLEF's predict reads quadrats through ``data_tools/untrusted_images``.

Real photographs (scikit-image's, shipped in the package) as quadrats, with a corrupt JPEG and a 14 KB PNG that
declares 121 Mpixel among them: each is ``images_invalid`` naming the file, sorted first or not, sharded or not;
the bomb is refused on its header (nothing decoded); ``--skip-unreadable`` goes on and records them; a refused
run leaves no ``.parts`` folder that would stop the corrected command.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest
from click.testing import CliRunner
from PIL import Image

from agrieval.baselines.plantclef._synthetic import demo_ids
from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli

N_CLASSES = 5
BOMB_SIDE = 11_000  # 121 Mpixel: past Pillow's warning limit (89.5 Mpixel)


def _photos() -> list[Image.Image]:
    from skimage import data as skdata

    out = []
    for arr in (skdata.astronaut(), skdata.coffee(), skdata.chelsea(), skdata.rocket()):
        img = Image.fromarray(arr).convert("RGB")
        img.thumbnail((160, 160), Image.Resampling.LANCZOS)
        out.append(img)
    return out


def bomb_png() -> bytes:
    buf = io.BytesIO()
    Image.new("1", (BOMB_SIDE, BOMB_SIDE)).save(buf, "PNG", optimize=True)
    return buf.getvalue()


@pytest.fixture(scope="module")
def quadrats(tmp_path_factory, tiny_checkpoint):
    folder = tmp_path_factory.mktemp("unreadable")
    species = sorted(load_competition("plantclef2025").labels)[:N_CLASSES]
    (folder / "class_mapping.txt").write_text("".join(f"{s}\n" for s in species))
    ids = demo_ids(6)
    images = folder / "images"
    images.mkdir()
    for image_id, photo in zip(ids[1:3] + ids[4:], _photos()):
        photo.save(images / f"{image_id}.jpg", quality=90)
    return folder, tiny_checkpoint[0], ids


def _predict(ws, images, out, *extra):
    folder, ckpt, _ = ws
    args = ["baselines", "plantclef", "predict", str(images), "--checkpoint", str(ckpt), "--class-mapping",
            str(folder / "class_mapping.txt"), "--preset", "tiny", "--tiling", "grid:2", "--device", "cpu",
            "--batch-size", "8", "--top-k", "2", "--save-top-k", "3", "--out", str(out), "--quiet", *extra]
    return CliRunner().invoke(cli, args)


def _with(ws, tmp_path, name: str, data: bytes):
    images = tmp_path / "images"
    images.mkdir()
    for p in (ws[0] / "images").iterdir():
        (images / p.name).write_bytes(p.read_bytes())
    (images / name).write_bytes(data)
    return images


def test_the_bomb_fixture_is_small_and_declares_121_megapixels():
    data = bomb_png()
    assert len(data) < 20_000
    assert data[12:16] == b"IHDR"  # the header's width and height, read without Pillow
    assert int.from_bytes(data[16:20], "big") * int.from_bytes(data[20:24], "big") == 121_000_000


@pytest.mark.parametrize("where", [0, 3], ids=["sorted-first", "in-the-middle"])
@pytest.mark.parametrize("kind", ["corrupt", "bomb"])
@pytest.mark.parametrize("sharded", [False, True], ids=["one-process", "shard"])
def test_an_unreadable_image_is_images_invalid_naming_it(quadrats, tmp_path, where, kind, sharded):
    ids = quadrats[2]
    name = f"{ids[where]}." + ("jpg" if kind == "corrupt" else "png")
    data = b"\xff\xd8\xff\xe0 truncated JPEG" if kind == "corrupt" else bomb_png()
    images = _with(quadrats, tmp_path, name, data)
    extra = ["--shard", "0/1", "--save-tile-scores", str(tmp_path / "t.parquet")] if sharded else []
    res = _predict(quadrats, images, tmp_path / "s.csv", *extra)
    assert res.exit_code == 2, res.output
    assert "error [images_invalid]" in res.output and str(images / name) in res.output
    if kind == "bomb":
        assert "decompression bomb" in res.output
    assert not (tmp_path / "s.csv").exists()
    parts = [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    if where == 0:  # refused before any image was saved: nothing left that would stop the corrected command
        assert not parts, parts
        resume = []
    else:  # the images before it are kept, and the message says how to go on from them
        assert len(parts) == 1 and "rerun with --resume" in res.output and "--skip-unreadable" in res.output
        resume = ["--resume"]
    # the corrected command (the file left out) goes on and records it
    again = _predict(quadrats, images, tmp_path / "s.csv", "--skip-unreadable", *resume, *extra)
    assert again.exit_code == 0, again.output
    assert "1 unreadable image(s) left out" in again.output and f"skipped: {images / name}" in again.output
    if sharded:
        from agrieval.baselines.plantclef.tile_scores import read_tile_scores

        frame, meta = read_tile_scores(tmp_path / "t.shard-0-of-1.parquet")
        assert [m.split(":")[0] for m in meta["skipped_unreadable"]] == [str(images / name)]
        assert ids[where] not in set(frame["image_id"]) and frame["image_id"].nunique() == 4
    else:
        sub = pd.read_csv(tmp_path / "s.csv", dtype=str)
        assert len(sub) == 5  # every quadrat has its row; the unreadable one has no species
        assert sorted(sub["quadrat_id"]) == sorted([ids[where]] + [i for k, i in enumerate(ids) if k in (1, 2, 4, 5)])


def test_the_bomb_is_refused_before_it_is_decoded(tmp_path, monkeypatch):
    """Pillow's header check: the 121 Mpixel image never reaches a decoder (1.4 GB for an 'L' image)."""
    from PIL import ImageFile

    from agrieval.baselines.plantclef.preprocess import load_rgb
    from agrieval.data_tools._untrusted_images import ImageUnreadable

    path = tmp_path / "bomb.png"
    path.write_bytes(bomb_png())
    decoded = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: decoded.append(self) or None)
    with pytest.raises(ImageUnreadable) as info:
        load_rgb(path)
    assert info.value.code == "image_unreadable" and str(path) in info.value.message and not decoded


def test_a_refused_option_leaves_no_parts_folder(quadrats, tmp_path):
    """A run stopped before any image was saved (here: a prior file that is not parquet, or not there) removes
    its own parts folder, so the corrected command starts without --overwrite or --resume."""
    images = quadrats[0] / "images"
    res = _predict(quadrats, images, tmp_path / "s.csv", "--prior", str(tmp_path / "nowhere.parquet"))
    assert res.exit_code == 2 and "error [prior_invalid] prior file" in res.output, res.output
    (tmp_path / "prior.parquet").write_bytes(pd.DataFrame({"image_name": ["x"]}).to_parquet())
    res = _predict(quadrats, images, tmp_path / "s.csv", "--prior", str(tmp_path / "prior.parquet"))
    assert res.exit_code == 2 and "error [prior_invalid]" in res.output, res.output
    assert not list(tmp_path.glob(".*"))
    ok = _predict(quadrats, images, tmp_path / "s.csv")
    assert ok.exit_code == 0, ok.output
