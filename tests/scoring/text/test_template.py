"""``agrieval.scoring.text.template``: each hole is filled through the literal its kind names, whatever the value;
a hole without a value, a value without a hole, a name given two kinds, a kind foreign to the template's language and raw text in a
``filled`` hole all fail; the shell's own ``$`` stays as written."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import Filled, fill, join, prose

HOSTILE = st.text(alphabet=st.sampled_from(list("ab $`'\"\\\n\r#*_[]()<>&;|{}:-.1\u2028\x00")), max_size=20)


@pytest.fixture
def here(tmp_path):
    (tmp_path / "templates").mkdir()

    def write(name: str, text: str) -> str:
        (tmp_path / "templates" / f"{name}.tmpl").write_text(text, encoding="utf-8")
        return str(tmp_path / "writer.py")

    return write


@settings(max_examples=100, deadline=None)
@given(value=HOSTILE)
def test_each_hole_is_its_kinds_literal(tmp_path_factory, value):
    root = tmp_path_factory.mktemp("t")
    (root / "templates").mkdir()
    (root / "templates" / "page.md.tmpl").write_text("# ${markdown:v}\n${markdown_code:c} ${markdown_block:b}")
    (root / "templates" / "page.html.tmpl").write_text("<p>${html:v}</p><pre>${html_block:b}</pre>${html_link:u}")
    (root / "templates" / "job.sh.tmpl").write_text('echo ${shell_word:v} "$HOME" ${X:-1}\n${shell_line:words}')
    module = str(root / "writer.py")
    assert fill(module, "page.md", v=value, c=value, b=value) == (f"# {lit.markdown(value)}\n{lit.markdown_code(value)} "
                                                f"{lit.markdown_block(value)}")
    assert fill(module, "page.html", v=value, b=value, u=value) == (f"<p>{lit.html(value)}</p><pre>{lit.html_block(value)}</pre>"
                                                  f"{lit.html_link(value)}")
    script = fill(module, "job.sh", v=value, words=["cmd", value])
    assert script == f'echo {lit.shell_word(value)} "$HOME" ${{X:-1}}\n{lit.shell_line("cmd", value)}'
    if "\x00" not in value:
        assert shlex.split(script.split("\n", 1)[1] if "\n" not in value else script[script.index("cmd"):]) == \
            ["cmd", value]


def test_a_hole_without_a_value_or_a_value_without_a_hole_fails(here):
    module = here("a.md", "${markdown:title} and ${markdown_code:name}")
    with pytest.raises(KeyError, match="markdown_code:name"):
        fill(module, "a.md", title="x")
    with pytest.raises(TypeError, match="no hole for titel"):
        fill(module, "a.md", titel="x", title="x", name="y")
    assert fill(module, "a.md", title="*x*", name="y") == "\\*x\\* and `y`"


@pytest.mark.parametrize("name, text", [("a.md", "${html:x}"), ("a.html", "${markdown:x}"), ("a.sh", "${text:x}"),
                                        ("a.txt", "${filled:x}"), ("a.md", "${markdown:x} ${markdown_code:x}"),  # (one name, two kinds)
                                        ("a.yaml", "${number:x}")])
def test_a_kind_foreign_to_the_language_is_refused(here, name, text):
    with pytest.raises(ValueError):
        fill(here(name, text), name, x="1")


def test_a_filled_hole_takes_only_filled_text(here):
    module = here("a.md", "before ${filled:part} after")
    with pytest.raises(TypeError, match="not a str"):
        fill(module, "a.md", part="<script>")
    inner = fill(here("b.md", "*${markdown:x}*"), "b.md", x="_y_")
    assert isinstance(inner, Filled)
    assert fill(module, "a.md", part=join([inner, prose("!")], ", ")) == "before *\\_y\\_*, ! after"
    with pytest.raises(ValueError):
        join([inner], "<b>")


def test_plain_text_templates_return_a_str_to_escape_where_it_lands(here):
    out = fill(here("s.txt", "${text:name}: ${date:day}, ${number:n} tries"), "s.txt", name="<b>", day="2027-01-01",
               n=3)
    assert out == "<b>: 2027-01-01, 3 tries" and not isinstance(out, Filled)


@pytest.mark.parametrize("kind, value", [("number", "3; rm -rf ~"), ("number", True), ("number", "1e3"),
                                         ("date", "2027-01-01\n# x"), ("date", "tomorrow")])
def test_numbers_and_dates_are_checked(here, kind, value):
    with pytest.raises(TypeError):
        fill(here("a.md", f"${{{kind}:v}}"), "a.md", v=value)


def test_sbatch_lines_quote_each_value_and_refuse_a_line_break(here):
    module = here("job.sh", "#!/bin/bash\n${sbatch:d}\n")
    text = fill(module, "job.sh", d=[("job-name", "a b"), ("requeue", None), ("cpus-per-task", 4)])
    assert text == "#!/bin/bash\n#SBATCH --job-name='a b'\n#SBATCH --requeue\n#SBATCH --cpus-per-task=4\n"
    for bad in ([("comment", "x\n#SBATCH --array=0-999")], [("Array x", "1")]):
        with pytest.raises(ValueError):
            fill(module, "job.sh", d=bad)
