"""Checkpoint loading (EMA first, timm training layout, safetensors), class mappings, clear errors."""

import pytest
import torch

from agrieval.baselines.plantclef.classes import MappingError, load_class_mapping
from agrieval.baselines.plantclef.model import PRESETS, CheckpointError, build_model, parse_model_kwargs


def _same(model, state):
    return all(torch.equal(v, state[k]) for k, v in model.state_dict().items())


def test_ema_weights_are_used_when_present(tiny_checkpoint):
    path, states = tiny_checkpoint
    model, info = build_model(PRESETS["tiny"], 5, path)
    assert info["weights"] == "state_dict_ema" and info["checkpoint"] == str(path)
    assert _same(model, states["state_dict_ema"]) and not _same(model, states["state_dict"])
    assert not model.training


def test_plain_state_dict_and_safetensors(tiny_checkpoint, tmp_path):
    from safetensors.torch import save_file

    _, states = tiny_checkpoint
    plain = tmp_path / "plain.pth.tar"
    torch.save({"state_dict": states["state_dict"]}, plain)
    model, info = build_model(PRESETS["tiny"], 5, plain)
    assert info["weights"] == "state_dict" and _same(model, states["state_dict"])
    st = tmp_path / "model.safetensors"
    save_file({k: v.contiguous() for k, v in states["state_dict"].items()}, str(st))
    model, info = build_model(PRESETS["tiny"], 5, st)
    assert info["weights"] == "(flat)" and _same(model, states["state_dict"])


def test_missing_checkpoint_says_what_to_download_and_where(tmp_path):
    with pytest.raises(CheckpointError) as exc:
        build_model(PRESETS["tiny"], 5, tmp_path / "model_best.pth.tar")
    msg = str(exc.value)
    assert "model_best.pth.tar not found" in msg and "class_mapping.txt" in msg and "--checkpoint" in msg


@pytest.mark.parametrize("shape", ["fifo", "folder"])
def test_a_checkpoint_that_is_no_regular_file_is_named_as_such_not_waited_on(tmp_path, shape):
    import os

    path = tmp_path / "model_best.pth.tar"
    os.mkfifo(path) if shape == "fifo" else path.mkdir()
    with pytest.raises(CheckpointError) as exc:
        build_model(PRESETS["tiny"], 5, path)
    assert f"is {'a FIFO' if shape == 'fifo' else 'a folder'}, not a regular file" in str(exc.value)


def test_checkpoint_for_another_class_count_is_explained(tiny_checkpoint):
    path, _ = tiny_checkpoint
    with pytest.raises(CheckpointError, match="does not fit .* with 7 classes"):
        build_model(PRESETS["tiny"], 7, path)


def test_model_kwargs_are_typed():
    assert parse_model_kwargs(["depth=2", "drop_rate=0.1", "dynamic_img_size=true", "act=gelu"]) == {
        "depth": 2, "drop_rate": 0.1, "dynamic_img_size": True, "act": "gelu"}
    with pytest.raises(ValueError, match="key=value"):
        parse_model_kwargs(["depth"])


def test_real_class_mapping_has_7806_distinct_species(real_files):
    ids = load_class_mapping(real_files / "plantclef_class_mapping.txt")
    assert len(ids) == 7806 and len(set(ids.tolist())) == 7806
    first = (real_files / "plantclef_class_mapping.txt").read_text().split()[0]
    assert ids[0] == int(first)


def test_csv_mapping_and_errors_name_file_and_line(tmp_path):
    p = tmp_path / "species_ids.csv"
    p.write_text("index,species_id\n1,1355869\n0,1355868\n")
    assert load_class_mapping(p).tolist() == [1355868, 1355869]
    bad = tmp_path / "class_mapping.txt"
    bad.write_text("1355868\n13558x9\n")
    with pytest.raises(MappingError, match=r"class_mapping.txt:2: species id '13558x9'"):
        load_class_mapping(bad)
    bad.write_text("1355868\n1355868\n")
    with pytest.raises(MappingError, match=r"appears on several lines \(\[1, 2\]\)"):
        load_class_mapping(bad)
    with pytest.raises(MappingError, match="not found"):
        load_class_mapping(tmp_path / "nope.txt")


def test_compiled_scorer_pads_the_last_batch_and_matches_eager():
    """--compile: the same top-k as the plain model, with 7 tiles in batches of 3 (last batch padded)."""
    from agrieval.baselines.plantclef.inference import TileScorer

    torch.manual_seed(0)
    model, _ = build_model(PRESETS["tiny"], 5, None)
    tiles = torch.randint(0, 256, (7, PRESETS["tiny"].img_size, PRESETS["tiny"].img_size, 3), dtype=torch.uint8)
    args = dict(device=torch.device("cpu"), top_k=3, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25), batch_size=3)
    plain_p, plain_i = TileScorer(model, **args)(tiles)
    seen = []
    compiled = TileScorer(model, **args, compile=True, compile_backend="eager")
    forward = compiled._forward
    assert forward is not model and hasattr(forward, "_orig_mod")  # the torch.compile wrapper
    compiled._forward = lambda x: seen.append(len(x)) or forward(x)
    comp_p, comp_i = compiled(tiles)
    assert seen == [3, 3, 3]  # one input shape only: a single compilation
    assert torch.equal(comp_i, plain_i) and torch.allclose(comp_p, plain_p, atol=1e-6)
    assert comp_p.shape == (7, 3)


def test_score_returns_exact_group_stats_and_sums_of_squares():
    """TileScorer.score against the full softmax computed here: per-group max and sum over every class, the
    BMA vectors (bma.bma_vectors is checked against NEUON's formula elsewhere) and sum_c p^2 per tile."""
    from agrieval.baselines.plantclef._bma import bma_vectors
    from agrieval.baselines.plantclef.inference import TileScorer

    torch.manual_seed(1)
    model, _ = build_model(PRESETS["tiny"], 5, None)
    size = PRESETS["tiny"].img_size
    tiles = torch.randint(0, 256, (7, size, size, 3), dtype=torch.uint8)
    mean, std = (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)
    scorer = TileScorer(model, torch.device("cpu"), 2, mean, std, batch_size=3)
    group = torch.tensor([0, 0, 1, 1, 1, 2, 0])
    out = scorer.score(tiles, group, 3)
    with torch.inference_mode():
        x = (tiles.permute(0, 3, 1, 2).float() - torch.tensor(mean).view(1, 3, 1, 1) * 255) / (
            torch.tensor(std).view(1, 3, 1, 1) * 255)
        p = model(x).float().softmax(-1)
    for g in range(3):
        rows = p[group == g]
        assert torch.allclose(out.group_max[g], rows.max(0).values, atol=1e-6)
        assert torch.allclose(out.group_sum[g], rows.sum(0), atol=1e-6)
    assert torch.allclose(out.group_bma, bma_vectors(p, group, 3), atol=1e-6)
    assert torch.allclose(out.p2, (p ** 2).sum(1), atol=1e-6)
    assert torch.equal(out.indices, p.topk(2, dim=-1).indices)


def test_the_gpu_smoke_check_of_the_image_stats_passes_on_the_cpu(capsys):
    from agrieval.baselines.plantclef._smoke import check_group_stats

    torch.manual_seed(2)
    model, _ = build_model(PRESETS["tiny"], 6, None)
    assert check_group_stats(model, torch.device("cpu"), 6, size=PRESETS["tiny"].img_size)
    assert "ok   image stats on cpu" in capsys.readouterr().out
