"""``--device`` of both baselines: one resolver (``agrieval.baselines._device``), one clean message per way it fails."""

import pytest
import torch

from agrieval.baselines._device import DeviceError, resolve_device


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


def test_auto_and_cpu_resolve_without_a_gpu(no_gpu):
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")


@pytest.mark.parametrize("name, text", [
    ("cuda", "asked for a GPU but"), ("cuda:1", "asked for a GPU but"), ("CUDA", "asked for a GPU but"),
    ("gpu", "is not a device name"), ("cuda:x", "is not a device name"), ("mps", "this baseline runs on"),
    ("", None),
])
def test_every_missing_device_is_one_device_error(no_gpu, name, text):
    if text is None:  # empty means auto
        assert resolve_device(name) == torch.device("cpu")
        return
    with pytest.raises(DeviceError) as err:
        resolve_device(name)
    assert text in str(err.value) and "--device" in str(err.value) and "\n" not in str(err.value)


def test_a_gpu_index_that_is_not_there_names_the_ones_that_are(one_gpu):
    assert resolve_device("cuda") == torch.device("cuda", 0)
    assert resolve_device("auto", local_rank=0) == torch.device("cuda", 0)
    with pytest.raises(DeviceError, match=r"no GPU 3 \(torch sees 1: cuda:0\)"):
        resolve_device("cuda:3")
