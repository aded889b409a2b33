"""Every file ``agrieval data`` reads that a person hands it (a class map, a split listing, the id key) is
opened by the one opening rule (``scoring/runtime/untrusted.py``): a FIFO would block a plain read for ever,
``/dev/zero`` would fill the memory, a huge file would be read whole. Each reader is attacked with each shape
and must refuse it at once, with its own code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agrieval.data_tools._keyed_ids import read_key
from agrieval.data_tools.classes import _MAX_CLASS_MAP_BYTES as MAX_CLASS_MAP_BYTES
from agrieval.data_tools.classes import load_class_map
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.splits import _read_listing as read_listing


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _huge(tmp_path: Path, size: int) -> Path:
    path = tmp_path / "huge"
    with open(path, "wb") as fh:  # sparse: no disk is spent on it
        fh.truncate(size)
    return path


READERS = {
    "class map": (lambda p: load_class_map(p), "bad_class_map", MAX_CLASS_MAP_BYTES),
    "listing": (lambda p: read_listing(p, ["t/c/a.jpg"]), "bad_listing", 256 << 20),
    "id key": (lambda p: read_key(p), "id_key_invalid", 4096),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", ["fifo", "device", "folder", "over the cap"])
def test_each_reader_refuses_each_adversarial_shape_at_once(tmp_path, reader, shape):
    read, code, cap = READERS[reader]
    path = {"fifo": lambda: _fifo(tmp_path), "device": lambda: Path("/dev/zero"), "folder": lambda: tmp_path,
            "over the cap": lambda: _huge(tmp_path, cap + 1)}[shape]()
    if shape == "over the cap" and reader == "id key":
        path.chmod(0o600)
    with pytest.raises(DataError) as err:
        read(path)
    assert err.value.code == code and str(path) in err.value.message
