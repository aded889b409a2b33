"""Every PlantCLEF file a researcher downloads and hands the kit (the class mapping, the genus file, DS@GT's
prior, the checkpoint) is opened by the one opening rule (``scoring/runtime/untrusted.py``): a FIFO would block
a plain read for ever, ``/dev/zero`` would fill the memory, a huge file would be read whole. Each reader is
attacked with each shape and must refuse it at once, naming the file, with its command's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrieval.baselines.plantclef import _genus as genus
from agrieval.baselines.plantclef import _prior as prior
from agrieval.baselines.plantclef import classes, model
from agrieval.baselines.plantclef._cli.errors import code_of, input_codes
from tests.hostile_files import NOT_REGULAR, at_most, make_not_regular


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:  # no disk is spent on it
        fh.truncate(size)
    return path


READERS = {  # name: (read, file name, cap, code of the command's error line)
    "class mapping": (classes.load_class_mapping, "class_mapping.txt", classes._MAX_MAPPING_BYTES,
                      "class_mapping_invalid"),
    "genus file": (genus.load_genus, "genus.csv", genus.MAX_GENUS_BYTES, "bad_option"),
    "prior": (lambda p: prior.load_prior(p, ["a"], 3), "prior.parquet", prior.MAX_PRIOR_BYTES, "prior_invalid"),
    "prior digest": (prior.file_digest, "prior.parquet", prior.MAX_PRIOR_BYTES, "prior_invalid"),
    "checkpoint": (lambda p: model.build_model(model.PRESETS["tiny"], 5, p), "model_best.pth.tar",
                   model.MAX_CHECKPOINT_BYTES, "checkpoint_invalid"),
}
SAYS = {"fifo": "is a FIFO, not a regular file", "device": "is a device, not a regular file",
        "folder": "is a folder, not a regular file", "over the cap": "bytes such a file can be; it was not read"}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", sorted(SAYS))
def test_each_plantclef_reader_refuses_each_adversarial_shape_at_once(tmp_path, reader, shape):
    read, name, cap, code = READERS[reader]
    path = tmp_path / name
    if shape in NOT_REGULAR:
        make_not_regular(path, shape)  # under the name the reader expects
    else:
        _sparse(path, cap + 1)
    with at_most(10, "the file"), pytest.raises(Exception) as err:
        read(path)
    assert code_of(err.value, input_codes()) == code, repr(err.value)
    assert str(path) in str(err.value) and SAYS[shape] in str(err.value), str(err.value)


def test_the_caps_say_what_each_file_can_be(real_files):
    """The organisers' class mapping (7,806 lines) is far under its cap; the caps stay within a factor of what
    the real files are, not what a machine survives."""
    mapping = real_files / "plantclef_class_mapping.txt"
    assert mapping.stat().st_size * 8 < classes._MAX_MAPPING_BYTES <= 64 * mapping.stat().st_size
    assert len(classes.load_class_mapping(mapping)) == 7806
    assert prior.MAX_PRIOR_BYTES <= 4 * 2105 * 7806 * 8 * 1.1  # four times PlantCLEF 2025's float64 prior


def test_a_prior_and_its_digest_read_the_same_file(tmp_path):
    """The prior read through the opening rule gives pyarrow's values and the file's SHA-256."""
    import hashlib

    import pandas as pd

    path = tmp_path / "prior.parquet"
    pd.DataFrame({"image_name": ["a.jpg", "b"], "prior_probabilities": [[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]]}
                 ).to_parquet(path)
    got = prior.load_prior(path, ["a", "b"], 3)
    assert got["a"].tolist() == [0.5, 0.25, 0.25] and got["b"].tolist() == [0.0, 1.0, 0.0]
    assert prior.file_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    path.write_bytes(b"not parquet")
    with pytest.raises(prior.PriorError, match="not a Parquet file"):
        prior.load_prior(path, ["a"], 3)


def test_a_genus_file_not_utf8_is_named(tmp_path):
    path = tmp_path / "genus.csv"
    path.write_bytes(b"species_id,genus\n1,Quercus\n2,\xff\xfe\n")
    with pytest.raises(ValueError, match=f"{path}: not UTF-8"):
        genus.load_genus(path)
    path.write_text("species_id,genus\n1,Quercus\n1,Quercus\n2,Fraxinus\n")  # the metadata's repeated rows
    assert genus.load_genus(path) == {1: "Quercus", 2: "Fraxinus"}
