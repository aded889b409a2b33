"""A final name holds a complete file (issue 22): checked, fsynced, renamed; nothing on a failed write.

Pillow's JPEG encoder writes to the file descriptor itself and does not report
a short write when the disk fills, so a truncated JPEG used to be renamed onto
its final name, and ``--resume`` then refused to go on. These tests make the
disk "fill" (a write that raises ENOSPC, an encoder that silently writes half
its bytes) and check that no final name holds a partial file, no temporary is
left behind, and ``--resume`` finishes the job.
"""

from __future__ import annotations

import errno
import io
import os

import pytest
from PIL import Image

from agrieval.data_tools import resize as resize_module
from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.resize import resize_tree
from agrieval.scoring.runtime import atomic


def _complete_jpegs(out, size):
    """Every .jpg under ``out`` decodes whole at ``size``; returns their count."""
    n = 0
    for p in out.rglob("*.jpg"):
        with Image.open(p) as img:
            img.load()  # raises on a truncated file (LOAD_TRUNCATED_IMAGES is off)
            assert img.size == (size, size)
        n += 1
    return n


def _temporaries(out):
    return sorted(p.name for p in out.rglob(".*.tmp"))


@pytest.fixture
def catalog(small_pool):
    return build_catalog(small_pool, workers=1, progress=False)


def test_silent_short_write_of_the_encoder_never_reaches_the_final_name(catalog, tmp_path, monkeypatch):
    real_save = Image.Image.save
    calls = {"n": 0}

    def short_save(self, fp, *args, **kw):  # the full-disk behaviour: half the bytes, no error
        calls["n"] += 1
        if calls["n"] % 2:
            return real_save(self, fp, *args, **kw)
        buf = io.BytesIO()
        real_save(self, buf, *args, **kw)
        fp.write(buf.getvalue()[: len(buf.getvalue()) // 2])

    monkeypatch.setattr(Image.Image, "save", short_save)
    out = tmp_path / "clean"
    m = resize_tree(catalog, out, size=48, workers=1, progress=False)
    assert _complete_jpegs(out, 48) == (m["status"] == "written").sum()
    assert (m["status"] == "error").sum() == len(m) // 2 and not _temporaries(out)
    monkeypatch.setattr(Image.Image, "save", real_save)
    again = resize_tree(catalog, out, size=48, workers=1, progress=False, resume=True)
    assert (again["status"] != "error").all() and _complete_jpegs(out, 48) == len(again)


def test_a_full_disk_leaves_no_file_and_resume_continues(catalog, tmp_path, monkeypatch):
    real_fdopen = os.fdopen
    state = {"files": 0}

    class FullDisk:
        """A binary file whose disk fills after 100 bytes, for every second file opened."""

        def __init__(self, fh):
            self.fh, self.room = fh, (100 if state["files"] % 2 else 1 << 30)
            state["files"] += 1

        def write(self, b):
            if len(b) > self.room:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.room -= len(b)
            return self.fh.write(b)

        def __getattr__(self, name):  # fileno, flush, tell, seek...: the real file's
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    def fdopen(fd, mode="r", *a, **kw):
        fh = real_fdopen(fd, mode, *a, **kw)
        return FullDisk(fh) if "b" in mode and "w" in mode else fh

    monkeypatch.setattr(atomic.os, "fdopen", fdopen)
    out = tmp_path / "clean"
    m = resize_tree(catalog, out, size=48, workers=1, progress=False)
    assert (m["status"] == "error").any() and m.loc[m["status"] == "error", "error"].str.contains("space").all()
    assert _complete_jpegs(out, 48) == (m["status"] == "written").sum()  # no truncated JPEG under a final name
    assert not _temporaries(out)  # and the temporaries were removed
    monkeypatch.setattr(atomic.os, "fdopen", real_fdopen)
    again = resize_tree(catalog, out, size=48, workers=1, progress=False, resume=True)
    assert (again["status"] != "error").all() and _complete_jpegs(out, 48) == len(again)


def test_resume_treats_leftover_temporaries_as_not_done_and_cleans_only_its_own(catalog, tmp_path):
    out = tmp_path / "clean"
    m = resize_tree(catalog, out, size=48, workers=1, progress=False)
    first = out / m["output_path"].iloc[0]
    data = first.read_bytes()
    first.unlink()  # a run killed before this rename: only its temporary is there, half written
    leftover = first.parent / f".{first.name}.k3j_x9q2.tmp"
    leftover.write_bytes(data[: len(data) // 2])
    foreign = first.parent / ".notes.tmp"  # not one of ours: never touched
    foreign.write_bytes(b"mine")
    again = resize_tree(catalog, out, size=48, workers=1, progress=False, resume=True)
    assert (again["status"] == "written").sum() == 1 and (again["status"] == "reused").sum() == len(m) - 1
    assert first.read_bytes() == data and not leftover.exists()
    assert foreign.read_bytes() == b"mine"


def test_atomic_write_checks_size_and_runs_the_check_before_the_rename(tmp_path):
    target = tmp_path / "a.bin"
    atomic.write_bytes(target, b"old")

    def refuse(path):
        assert path.read_bytes() == b"new bytes" and path != target  # the temporary, complete
        raise ValueError("not what we meant")

    with pytest.raises(ValueError):
        atomic.write_bytes(target, b"new bytes", check=refuse)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["a.bin"]

    with pytest.raises(OSError) as err, atomic.atomic_write(target, "wb", encoding=None) as fh:
        fh.write(b"new")
        fh.flush()
        os.ftruncate(fh.fileno(), 1)  # a file shorter than what was written: refused
    assert "bytes" in str(err.value)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["a.bin"]


def test_resize_checks_what_it_wrote_by_decoding_it(catalog, tmp_path, monkeypatch):
    seen = []
    real = resize_module._written_jpeg_ok
    monkeypatch.setattr(resize_module, "_written_jpeg_ok", lambda p, s: seen.append(p) or real(p, s))
    resize_tree(catalog, tmp_path / "clean", size=48, workers=1, progress=False)
    assert seen and all(p.name.endswith(".tmp") for p in seen)  # the temporary, before its rename
