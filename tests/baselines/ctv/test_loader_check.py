"""``agrieval baselines ctv loader-check``: per-image host time of a fold's train images, and workers for a target."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from agrieval.baselines.ctv._cli import ctv
from agrieval.baselines.ctv.manifest import load_fold


def _check(splits, *extra):
    res = CliRunner().invoke(ctv, ["loader-check", "--splits", str(splits), "--protocol", "toto", "--fold", "alpha",
                                   *extra])
    return res


def test_json_reports_both_placements_and_the_workers_they_need(ctv_data):
    _, splits = ctv_data
    res = _check(splits, "--json", "--target", "1000")
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    n_train = len(load_fold(splits, "toto", "alpha").part("train"))
    assert r["images"] == n_train and r["threads"] == 1 and r["transforms"] == "kit"
    ms = r["host_ms_per_image"]
    # the whole pipeline costs the CPU's part plus the augmentation on the CPU
    assert 0 < ms["device"] < ms["host"]
    assert ms["host"] == pytest.approx(ms["device"] + r["augment_on_cpu_ms_per_image"])
    for k in ("host", "device"):
        assert r["images_per_s_per_worker"][k] == pytest.approx(1000 / ms[k])
        assert r["workers_for_target"][k] == math.ceil(1000 / r["images_per_s_per_worker"][k])
    # what it reports lies inside its own wall time
    assert r["measured_s"] == pytest.approx(ms["host"] * n_train / 1000)
    assert r["wall_s"] >= r["measured_s"]


def test_the_scripts_pipeline_has_no_device_part_and_limit_caps_the_images(ctv_data):
    _, splits = ctv_data
    r = json.loads(_check(splits, "--json", "--preset", "official", "--limit", "4").output)
    assert r["images"] == 4 and r["transforms"] == "script"
    assert r["host_ms_per_image"]["host"] == r["host_ms_per_image"]["device"] > 0


def test_text_report_and_bad_values(ctv_data):
    _, splits = ctv_data
    res = _check(splits, "--limit", "3")
    assert res.exit_code == 0
    assert "whole pipeline on the CPU" in res.output and "augmentation on a device" in res.output
    assert "CPUs per GPU" in res.output
    bad = _check(splits, "--threads", "0")
    assert bad.exit_code == 2 and "bad_option" in bad.output
