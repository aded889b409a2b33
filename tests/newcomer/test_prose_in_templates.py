"""Generated prose and job scripts live in package-data templates (``agrieval.scoring.text.template``), not in
the Python of their writers: read from the writers' syntax trees, no f-string spans more than one line (a long
README, page or script written as an f-string, or as f-strings concatenated over several lines), except in the
message of an exception. Every ``prose(...)`` holds one string literal, and nothing but the template module
makes ``Filled`` text, so that a ``filled`` hole only ever receives the kit's own words or another template."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITERS = sorted((ROOT / "scoring" / "authoring" / "_bundles").glob("*.py")) + [
    ROOT / "baselines" / "_sbatch.py", ROOT / "baselines" / "ctv" / "slurm.py", ROOT / "baselines" / "plantclef" / "_slurm.py"]
HOME = ROOT / "scoring" / "text" / "template.py"
PACKAGES = ("scoring", "data_tools", "baselines")


def _message_nodes(tree) -> set:
    """Ids of the nodes inside an exception's message: ``raise X(...)`` and ``SomethingError(...)`` calls."""
    inside = set()
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else node
        if isinstance(call, ast.Call):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if isinstance(node, ast.Raise) or name.endswith(("Error", "Exception")):
                inside.update(id(n) for n in ast.walk(call))
    return inside


def long_fstrings(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    messages = _message_nodes(tree)
    where = path.relative_to(ROOT) if ROOT in path.parents else path.name
    return [f"{where}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr) and node.end_lineno > node.lineno and id(node) not in messages]


def test_no_writer_holds_an_f_string_longer_than_a_line():
    found = [hit for path in WRITERS for hit in long_fstrings(path)]
    assert not found, ("prose or a script written as a multi-line f-string: move it into a template "
                       "(templates/NAME.LANG.tmpl, agrieval.scoring.text.template):\n" + "\n".join(found))


def test_the_check_sees_a_multi_line_f_string_and_spares_an_error_message(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('x = 1\nreadme = (f"# {x}\\n"\n          "more")\ntext = f"""# {x}\nbody"""\n'
                      'one = f"a {x} line"\nraise ValueError(f"bad {x}: "\n                 "why")\n')
    assert [hit.rsplit(":", 1)[1] for hit in long_fstrings(sample)] == ["2", "4"]


def _calls(path: Path, name: str):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (getattr(node.func, "id", None) == name
                                           or getattr(node.func, "attr", None) == name):
            yield node


def test_prose_takes_one_string_literal_and_only_the_template_module_makes_filled_text():
    bad = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in _calls(path, "prose"):
                if len(node.args) != 1 or node.keywords or not (isinstance(node.args[0], ast.Constant)
                                                                and isinstance(node.args[0].value, str)):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: prose() of something else than a literal")
            if path != HOME:
                bad += [f"{path.relative_to(ROOT)}:{node.lineno}: Filled(...)" for node in _calls(path, "Filled")]
    assert not bad, "\n".join(bad)


def test_every_template_is_filled_somewhere():
    """A template no writer names is dead text (its name appears in a writer as a string)."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in WRITERS)
    unused = []
    for folder in (ROOT / "scoring" / "authoring" / "_bundles" / "templates", ROOT / "baselines" / "templates"):
        for path in sorted(folder.glob("*.tmpl")):
            stem = path.name[:-len(".tmpl")]
            language = stem.rsplit(".", 1)[1]
            if f'"{stem}"' not in sources and f'"{stem.rsplit(".", 1)[0]}.{{language}}"' not in sources \
                    and f'f"{stem.rsplit(".", 1)[0]}.{{language}}"' not in sources:
                unused.append(str(path.relative_to(ROOT)))
            assert language in ("md", "html", "sh", "txt"), path
    assert not unused, unused
