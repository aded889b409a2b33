"""Each trust rule has one home (DESIGN.md, trust rules), and new code cannot forget it: these tests read every
module's syntax tree (``trust_homes.py``) and fail on a call that bypasses the home, the way
``test_one_quoting_home.py`` does for quoting. What is allowed outside a home is listed below by module, function
and call, each with the reason it is not a file someone else wrote, a people-facing CSV, or a name in a table.
Each checker is shown to catch the bypass it forbids on a planted module.

==================================  ===========================================================================
rule                                home
==================================  ===========================================================================
opening a file someone else wrote   ``scoring/runtime/untrusted.py`` (``open_regular``, ``read_bytes``,
                                    ``read_json``); images: ``data_tools/_untrusted_images.py`` (``decode_image``)
a name in a terminal table          ``scoring/text/terminal.py`` (``cell``, ``one_line``)
CSV written for people              ``scoring/text/tables.py`` (``csv_text``: formulas neutralised)
values handed to another program    ``scoring/text/literals.py`` (``shell_word``, ``shell_line``; commands as
                                    argv lists), ``scoring/text/template.py`` (the ``sbatch`` hole, its values
                                    checked by ``baselines/_sbatch.py`` ``checked``, ``parse_extra``)
==================================  ===========================================================================
"""

from __future__ import annotations

from . import trust_homes as th

KIT = "the kit's own write, read back by the kit"
PROC = "the kernel's /proc file (no participant writes it)"
LOCK = "os.open of a lock or temporary file the kit creates (O_CREAT|O_EXCL or the file it locks), not a read"
PACKAGE = "package data shipped with agrieval, by its name"
ORGANIZER = "the organizer's own solution or definition, copied into the bundle they build"
HANDLE = "reads the file object open_regular opened (capped, a regular file), never the path"

OPENING_ALLOWED = {
    ("scoring/authoring/_bundles/codabench.py", "shared_files", ".read_bytes"): ORGANIZER,
    ("scoring/authoring/_bundles/evalai.py", "build", ".read_bytes"): ORGANIZER,
    ("scoring/authoring/_bundles/files.py", "_perfect_submission", "open"): ORGANIZER,
    ("scoring/authoring/_bundles/files.py", "zip_bytes", "zipfile.ZipFile"): "a zip the kit writes into memory",
    ("scoring/authoring/_bundles/hf.py", "build", ".read_bytes"): ORGANIZER,
    ("scoring/authoring/_bundles/kaggle.py", "build", ".read_bytes"): ORGANIZER,
    ("scoring/authoring/_vendoring.py", "runtime_sources", ".read_text"): PACKAGE + " (scoring/runtime's sources)",
    ("scoring/text/template.py", "_read", ".read_text"): PACKAGE + " (a template: templates/*.tmpl)",
    ("scoring/cli/_competitions.py", "show", ".read_text"): PACKAGE + " (a shipped TOML) or the organizer's own",
    ("scoring/cli/_output.py", "_hold_closed_descriptor", "os.open"): "opens /dev/null for a closed stdout",
    ("scoring/runtime/atomic.py", "_umask", "open"): PROC,
    ("scoring/runtime/atomic.py", "commit", "os.open"): LOCK,
    ("scoring/runtime/_ladder.py", "locked", "os.open"): LOCK,
    ("scoring/runtime/_platforms/hf.py", "solution_convention", "open"): ORGANIZER + " (its header line)",
    ("scoring/runtime/reading/_uploads.py", "from_zip", "zipfile.ZipFile"): "bytes read by the opening rule",
    ("scoring/runtime/reading/_uploads.py", "_inflate_capped", ".open"): "a member of that zip, inflated capped",
    ("scoring/runtime/_time_limit.py", "_mapped_bytes", "open"): PROC,
    ("scoring/_server/store.py", "Store.keep_upload", "os.open"): LOCK + " (an upload's bytes, kept 0600)",
    ("scoring/_server/store.py", "create_store", "os.open"): LOCK + " (the store, created 0600)",
    ("data_tools/classes.py", "load_class_map", ".read_text"): PACKAGE + " (class_map.toml)",
    ("data_tools/dedup.py", "_move_no_replace", "os.open"): LOCK,
    ("data_tools/demo_pool.py", "make_demo_pool", ".read_bytes"): KIT + " (the demo pool it generates)",
    ("data_tools/_keyed_ids.py", "write_new_key", "os.open"): LOCK,
    ("data_tools/resize.py", "_written_jpeg_ok", "Image.open"): KIT + " (the JPEG it just wrote)",
    ("data_tools/versions.py", "_cpu_identity", "open"): PROC,
    ("baselines/ctv/_cache.py", "build_cache", "np.memmap"): KIT + " (the cache it creates)",
    ("baselines/ctv/_cache.py", "open_cache", "np.memmap"): KIT + " (its index read by the opening rule first)",
    ("baselines/ctv/_checkpoint.py", "load", "torch.load"): "weights_only=True on a file open_regular opened",
    ("baselines/ctv/_dataset.py", "note_unreadable", "os.open"): LOCK,
    ("baselines/ctv/_dataset.py", "unreadable_paths", ".read_text"): KIT + " (its markers of unreadable images)",
    ("baselines/ctv/_loader_check.py", "_cpu_name", ".read_text"): PROC,
    ("baselines/ctv/slurm.py", "read_runs_table", "open"): KIT + " (runs.tsv beside the script it wrote)",
    ("baselines/plantclef/_cli/doc_tables.py", "main", ".read_text"): "the repository's own docs page",
    ("baselines/plantclef/_full_probs.py", "read_full", "pq.read_table"): KIT + " (its full-probability shards)",
    ("baselines/plantclef/_image_stats.py", "read_stats", "pq.read_table"): KIT + " (its image statistics)",
    ("baselines/plantclef/model.py", "_torch_load", "torch.load"): HANDLE + " (weights_only=True)",
    ("baselines/plantclef/_prior.py", "load_prior", "pq.read_table"): HANDLE + " (pyarrow parses the prior)",
    ("baselines/plantclef/tile_scores.py", "read_tile_scores", "pq.read_table"): KIT + " (its tile scores)",
    ("baselines/plantclef/tile_scores.py", "PartStore.done_ids", "pq.read_table"): KIT + " (its tile scores)",
}
CSV_ALLOWED = {  # machine formats read back exactly: a formula guard would change their values
    ("scoring/authoring/_bundles/files.py", "_perfect_submission", "csv.writer"): "a sample submission (machine)",
    ("scoring/runtime/_platforms/kaggle.py", "_frame_csv", "to_csv"): "Kaggle's solution/submission (machine)",
    ("scoring/writing/submission.py", "format_submission", "csv.writer"): "a submission (machine)",
    ("baselines/ctv/demo.py", "_write_demo_submission", "csv.writer"): "the demo's id list and solution (machine)",
    ("data_tools/tables.py", "write_table", "to_csv"): "catalog/split tables read back by the kit, paths exact",
    ("baselines/ctv/_outputs.py", "write_predictions", "csv.writer"): "predictions.csv, read by ctv report",
    ("baselines/ctv/slurm.py", "runs_table", "csv.writer"): "runs.tsv, read by the job script and ctv status",
    ("baselines/plantclef/demo.py", "_write_solution", "csv.writer"): "the demo's solution (machine)",
}
PROGRAM_ALLOWED = {("scoring/text/template.py", "_sbatch", "#SBATCH line"): "the home of #SBATCH lines (hole kind sbatch)"}


def _check(check, allowed, skip=()):
    found, stale = th.bypasses(check, allowed, skip)
    assert not stale, f"allow-list entries that match no call any more (remove them): {stale}"
    return found


def test_no_module_opens_a_file_outside_the_opening_rule_but_the_listed_ones():
    homes = (th.ROOT / "scoring/runtime/untrusted.py", th.ROOT / "data_tools/_untrusted_images.py")
    found = _check(th.opening_calls, OPENING_ALLOWED, homes)
    assert not found, ("open a file someone else wrote with agrieval.scoring.runtime.untrusted (open_regular, "
                       "read_bytes, read_json) or data_tools/untrusted_images.decode_image; a file the kit wrote "
                       "itself: list it in OPENING_ALLOWED with the reason:\n" + "\n".join(found))


def test_no_terminal_table_pads_a_name_without_terminal_cell():
    found = _check(th.padded_raw_cells, {})
    assert not found, ("a padded column of a terminal table prints a name raw: use agrieval.scoring.text.terminal."
                       "cell (or a numeric format for a number):\n" + "\n".join(found))


def test_no_csv_is_written_outside_tables_csv_text_but_the_listed_machine_formats():
    found = _check(th.csv_writer_calls, CSV_ALLOWED, (th.ROOT / "scoring/text/tables.py",))
    assert not found, ("write a CSV for people with agrieval.scoring.text.tables.csv_text (formulas neutralised); "
                       "a machine format read back exactly: list it in CSV_ALLOWED with the reason:\n"
                       + "\n".join(found))


def test_no_value_reaches_another_program_outside_its_function():
    found = _check(th.program_value_bypasses, PROGRAM_ALLOWED)
    assert not found, ("run commands as argv lists (shell words: agrieval.scoring.text.literals.shell_word), "
                       "#SBATCH lines through a job-script template's sbatch hole (agrieval.baselines._sbatch.script):\n" + "\n".join(found))


def test_every_allowed_entry_says_why():
    for table in (OPENING_ALLOWED, CSV_ALLOWED, PROGRAM_ALLOWED):
        assert all(isinstance(why, str) and len(why) > 10 for why in table.values())


# --- each checker catches the bypass it forbids ---------------------------------------------------------------

PLANTED = '''
import json, csv, os, subprocess
import pandas as pd
from PIL import Image
def read_log(path, data):
    a = open(path).read()
    b = path.read_text()
    c = json.load(path.open())
    d = pd.read_csv(path)
    e = Image.open(path)
    f = pd.read_csv(io.BytesIO(data))  # in memory: not a file
    return a, b, c, d, e, f
def table(rows):
    return [f"{r.team:<24} {r.n:>5d} {cell(r.team, 24)}" for r in rows]
def export(rows, fh, df):
    csv.writer(fh).writerows(rows)
    df.to_csv(fh)
def submit(name):
    subprocess.run(f"sbatch {name}", shell=True)
    subprocess.run(f"sbatch {name}")
    subprocess.run(["sbatch", name])
    os.system("ls")
    return [f"#SBATCH --job-name={name}"]
'''


def test_each_checker_catches_a_planted_bypass(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(PLANTED)
    assert list(th.opening_calls(sample)) == [("read_log", n) for n in
                                              ("open", ".read_text", "json.load", ".open", "pd.read_csv", "Image.open")]
    assert list(th.padded_raw_cells(sample)) == [("table", "r.team")]
    assert list(th.csv_writer_calls(sample)) == [("export", "csv.writer"), ("export", "to_csv")]
    assert sorted(set(th.program_value_bypasses(sample))) == sorted([
        ("submit", "subprocess.run(shell=...)"), ("submit", "subprocess.run(a command string)"),
        ("submit", "os.system"), ("submit", "#SBATCH line")])


def test_a_planted_module_fails_the_repository_check(tmp_path, monkeypatch):
    """The same check over the packages fails when a module with a bypass is among them."""
    package = tmp_path / "scoring"
    package.mkdir()
    (package / "bypass.py").write_text(PLANTED)
    monkeypatch.setattr(th, "ROOT", tmp_path)
    found, _ = th.bypasses(th.opening_calls, {})
    assert f"{package.name}/{'bypass'}.py: read_log: pd.read_csv" in found and len(found) == 6
