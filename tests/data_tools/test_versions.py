"""Every library-dependent curation output names the versions it ran with; ``--preset official`` warns when
Pillow or pandas differ from the notebooks' (their saved pip output: Pillow 11.3.0, pandas 2.2.0)."""

from __future__ import annotations

import json
from importlib import metadata

import pytest
from click.testing import CliRunner

from agrieval.data_tools._cli import data
from agrieval.data_tools._notebook_versions import NOTEBOOK_VERSIONS, version_warnings
from agrieval.data_tools.demo_pool import make_demo_pool
from agrieval.data_tools.versions import library_versions, read_versions, sidecar


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """demo pool -> catalog -> dedup (official) -> resize (official) -> catalog -> splits (official), by the CLI."""
    base = tmp_path_factory.mktemp("versions")
    pool = make_demo_pool(base / "pool", teams=2, per_class=4, size=48)
    run = CliRunner().invoke
    out = {"catalog": run(data, ["catalog", str(pool), "-o", str(base / "catalog.csv"), "--workers", "1"]),
           "dedup": run(data, ["dedup", str(base / "catalog.csv"), "-o", str(base / "dedup.csv"), "--preset",
                               "official"]),
           "resize": run(data, ["resize", str(base / "dedup.csv"), str(base / "clean"), "--preset", "official",
                                "--workers", "1"])}
    run(data, ["catalog", str(base / "clean"), "-o", str(base / "clean.csv"), "--workers", "1"])
    out["splits"] = run(data, ["splits", str(base / "clean.csv"), "--protocol", "toto", "-o", str(base / "splits"),
                               "--preset", "official"])
    return base, out


def test_each_output_records_its_library_versions(chain):
    base, res = chain
    assert all(r.exit_code == 0 for r in res.values()), {k: r.output for k, r in res.items()}
    pillow, pandas = metadata.version("pillow"), metadata.version("pandas")
    cat = read_versions(base / "catalog.csv")
    assert cat["Pillow"] == pillow and cat["imagehash"] == metadata.version("imagehash") and cat["pandas"] == pandas
    assert json.loads(sidecar(base / "catalog.csv").read_text())["stage"] == "catalog"
    assert set(read_versions(base / "dedup.csv")) == {"python", "pandas", "numpy"}
    resize = read_versions(base / "clean" / "resize_manifest.csv")
    assert resize["Pillow"] == pillow and "imagehash" not in resize  # only what that stage uses
    folds = json.loads((base / "splits" / "toto" / "folds.json").read_text())
    assert folds["versions"]["pandas"] == pandas and "Pillow" not in folds["versions"]


def test_official_curation_warns_about_pillow_and_pandas(chain):
    _, res = chain
    pillow, pandas = metadata.version("pillow"), metadata.version("pandas")
    dedup_err, resize_err = res["dedup"].stderr, res["resize"].stderr
    # both branches are real: warned exactly when this environment differs from the notebooks'
    assert ("version_differs: pandas" in dedup_err) == (pandas != NOTEBOOK_VERSIONS["pandas"])
    assert ("version_differs: Pillow" in resize_err) == (pillow != NOTEBOOK_VERSIONS["Pillow"])
    assert (f"Pillow {pillow} made catalog.csv" in dedup_err) == (pillow != NOTEBOOK_VERSIONS["Pillow"])
    if pillow != NOTEBOOK_VERSIONS["Pillow"]:
        assert "11.3.0" in resize_err and "BICUBIC" in resize_err and "grey levels" in resize_err


def test_the_paper_preset_does_not_warn(chain):
    base, _ = chain
    res = CliRunner().invoke(data, ["dedup", str(base / "catalog.csv"), "-o", str(base / "dedup_paper.csv")])
    assert res.exit_code == 0 and "version_differs" not in res.stderr


def test_warnings_name_the_version_and_what_can_change():
    same = dict(NOTEBOOK_VERSIONS)
    assert version_warnings("resize", same) == [] and version_warnings("dedup", same) == []
    lines = version_warnings("dedup", {**same, "pandas": "3.0.1", "Pillow": "13.0.0"})
    assert len(lines) == 1 and "pandas 3.0.1 here, the notebooks ran 2.2.0" in lines[0]
    assert "7 of 15 duplicate groups" in lines[0] and "pip output" in lines[0] and "what can change" in lines[0]
    assert version_warnings("catalog", {"Pillow": "12.0.0"}, where="made x.csv")[0].startswith(
        "warning: version_differs: Pillow 12.0.0 made x.csv")


def test_library_versions_lists_only_what_is_installed():
    v = library_versions(("numpy", "Pillow", "surely_not_installed_pkg"))
    assert set(v) == {"python", "numpy", "Pillow"} and v["Pillow"] == metadata.version("pillow")


def test_a_catalog_without_versions_is_judged_by_this_pillow(chain, tmp_path):
    import shutil

    base, _ = chain
    shutil.copy(base / "catalog.csv", tmp_path / "old.csv")  # a catalog from before versions were recorded
    res = CliRunner().invoke(data, ["dedup", str(tmp_path / "old.csv"), "-o", str(tmp_path / "d.csv"), "--preset",
                                    "official"])
    assert res.exit_code == 0
    differs = metadata.version("pillow") != NOTEBOOK_VERSIONS["Pillow"]
    assert ("here (old.csv records no versions)" in res.stderr) == differs
