"""Model construction: published parameter counts, heads, local weights files."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.models import build_model, count_parameters


@pytest.mark.parametrize("arch, published", [("densenet121", 7_978_856), ("swin_tiny", 28_288_354)])
def test_paper_models_match_published_sizes(arch, published):
    # torchvision's densenet121 and the Swin-T paper (28.3M) with a 1000-class head
    with torch.device("meta"):
        model = build_model(arch, 1000)
    assert count_parameters(model) == published
    assert abs(count_parameters(model) / 1e6 - {"densenet121": 8.0, "swin_tiny": 28.3}[arch]) < 0.05


def test_heads_have_the_documented_layers():
    with torch.device("meta"):
        lin = build_model("densenet121", 6, head="linear", head_dropout=0.3)
        mlp = build_model("swin_base", 6, head="mlp", head_dropout=0.3, head_hidden=512)
    assert [type(m) for m in lin.head] == [nn.Dropout, nn.Linear]
    assert lin.head[0].p == 0.3 and (lin.head[1].in_features, lin.head[1].out_features) == (1024, 6)
    assert [type(m) for m in mlp.head] == [nn.Dropout, nn.Linear, nn.ReLU, nn.BatchNorm1d, nn.Dropout, nn.Linear]
    assert (mlp.head[1].in_features, mlp.head[1].out_features, mlp.head[5].out_features) == (1024, 512, 6)


def test_pretrained_without_a_file_names_the_file_to_fetch():
    with pytest.raises(CTVError) as err:
        build_model("densenet121", 6, pretrained=True)
    assert err.value.code == "weights_missing"
    assert "densenet121.tv_in1k" in err.value.message
    assert "huggingface.co/timm/densenet121.tv_in1k" in err.value.message
    with pytest.raises(CTVError) as err:
        build_model("tiny_cnn", 6, pretrained=True, weights="/nonexistent/w.safetensors")
    assert err.value.code == "weights_missing" and "/nonexistent/w.safetensors" in err.value.message


@pytest.mark.parametrize("ext", ["safetensors", "pth"])
def test_local_weights_file_is_loaded_into_the_backbone(tmp_path, ext):
    import timm

    torch.manual_seed(123)
    source = timm.create_model("test_resnet", num_classes=1000)  # a "pretrained" 1000-class model
    path = tmp_path / f"w.{ext}"
    if ext == "safetensors":
        from safetensors.torch import save_file

        save_file(source.state_dict(), str(path))
    else:
        torch.save(source.state_dict(), path)
    torch.manual_seed(0)
    model = build_model("tiny_cnn", 6, pretrained=True, weights=str(path))
    ref = {k: v for k, v in source.state_dict().items() if not k.startswith("fc.")}
    got = model.backbone.state_dict()
    assert set(got) == set(ref)
    for k in ref:
        assert torch.equal(got[k], ref[k]), k
    assert model.head[1].out_features == 6


def test_a_broken_weights_file_is_reported(tmp_path):
    path = tmp_path / "broken.pth"
    torch.save({"not": torch.zeros(1)}, path)
    with pytest.raises(CTVError) as err:
        build_model("tiny_cnn", 6, pretrained=True, weights=str(path))
    assert err.value.code == "weights_invalid" and str(path) in err.value.message


def test_unknown_arch_lists_the_registered_ones():
    with pytest.raises(CTVError) as err:
        build_model("densenet_9000", 6)
    assert err.value.code == "unknown_arch" and "densenet121" in err.value.message


def test_one_training_step_lowers_the_loss_on_a_fixed_batch():
    from skimage import data

    from agrieval.baselines.ctv._transforms import normalize_batch

    torch.manual_seed(0)
    imgs = [data.astronaut(), data.coffee(), data.chelsea(), data.astronaut()[::-1]]
    x = torch.stack([torch.from_numpy(i[:256, :256].copy()).permute(2, 0, 1) for i in imgs])
    x = normalize_batch(torch.nn.functional.interpolate(x.float(), size=32).to(torch.uint8),
                        (0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    y = torch.tensor([0, 1, 2, 0])
    model = build_model("tiny_cnn", 3, head_dropout=0.0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()

    def eval_loss():
        model.eval()
        with torch.no_grad():
            return loss_fn(model(x), y).item()

    before = eval_loss()
    model.train()
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    assert eval_loss() < before


def test_a_model_with_batch_norm_never_gets_a_step_of_one_image():
    """timm's test_resnet (the demo's tiny_cnn) at 32 px reaches a 1x1 map before BatchNorm2d: one image per
    step stops training ("Expected more than 1 value per channel"). It happened with 49 training images in
    batches of 16 (a leave-one-team-out pool of the demo); the runner now asks two images per step of any
    model with batch norm, and the sampler joins a last batch of one to the one before it."""
    import timm
    import torch

    from agrieval.baselines.ctv._distributed import DistInfo, EpochBatches
    from agrieval.baselines.ctv.engine import needs_two_per_step

    model = timm.create_model("test_resnet", pretrained=False, num_classes=6).train()
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        model(torch.zeros(1, 3, 32, 32))  # the premise: one image cannot train
    assert needs_two_per_step(model) and not needs_two_per_step(torch.nn.Linear(3, 2))
    sizes = EpochBatches(49, 16, 7, DistInfo(), drop_last=False, min_per_rank=2).global_sizes()
    assert sizes == [16, 16, 17] and sum(sizes) == 49
