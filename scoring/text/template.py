"""Generated prose and job scripts from package-data templates whose every hole names the literal it takes.

A template is a file ``templates/NAME.LANG.tmpl`` next to the module that fills it: the kit's own text, with holes
written ``${kind:name}``. The kind says where the value lands, and ``fill`` passes the value through that kind's
function of ``agrieval.scoring.text.literals`` (DESIGN.md, trust rules: "values are literals"): the caller hands
over raw values and cannot choose the escaping, nor forget it. A ``$`` not followed by ``{kind:`` is text (a
shell's ``$VAR`` or ``${VAR:-x}`` needs no escape). ``string.Template.substitute`` fills the holes: a hole without
a value fails, and so does a value without a hole (a misspelt name).

=================  ====================================================  ===============================
kind               what the value becomes                                 languages (``LANG``)
=================  ====================================================  ===============================
``markdown``       ``literals.markdown``: inline text, never markup       md
``markdown_code``  ``literals.markdown_code``: a code span                md
``markdown_block`` ``literals.markdown_block``: an indented code block    md
``html``           ``literals.html``: element text or attribute value     html
``html_block``     ``literals.html_block``: a ``<pre>``'s content         html
``html_link``      ``literals.html_link``: a link to an http(s) URL only  html
``shell_word``     ``literals.shell_word``: one shell word                sh
``shell_line``     ``literals.shell_line`` of a sequence of words         sh
``sbatch``         ``#SBATCH --option[=value]`` lines from (option, value)  sh
                   pairs, each value one printable shell word
``shell_code``     the user's own line (``--setup``), as written            sh
``number``         an int, or digits and dots (a version, a decimal)      every one
``date``           ``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM:SS``              every one
``filled``         text this module made: another template's ``fill``,    md, html, sh
                   ``prose`` of a constant or a ``join`` of those
``text``           the value as it is                                     txt only
=================  ====================================================  ===============================

A ``txt`` template makes plain text (a sentence for a page), which is a value like any other: ``fill`` returns it
as a ``str``, escaped where it lands. Every other template returns ``Filled``, the one type a ``filled`` hole
takes. ``prose`` makes ``Filled`` from a string constant of the kit (``tests/scoring/text/test_template.py``
reads the modules: its argument is always a literal in the source, and nothing else constructs ``Filled``).
"""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path

from agrieval.scoring.text import literals as lit

__all__ = ["KINDS", "LANGUAGES", "Filled", "fill", "join", "prose"]


class Filled(str):
    """Text made here: a filled template, ``prose`` of a constant, or a ``join`` of those."""


_OPTION = re.compile(r"^[a-z][a-z0-9-]*$")
_NUMBER = re.compile(r"^[0-9]+(?:\.[0-9]+)*$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}:[0-9]{2})?$")


def _number(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and _NUMBER.match(value):
        return value
    raise TypeError(f"a number hole takes an int or digits and dots, not {value!r}")


def _date(value) -> str:
    if not (isinstance(value, str) and _DATE.match(value)):
        raise TypeError(f"a date hole takes YYYY-MM-DD[ HH:MM:SS], not {value!r}")
    return value


def _filled(value) -> str:
    if not isinstance(value, Filled):
        raise TypeError(f"a filled hole takes text made by agrieval.scoring.text.template, not a {type(value).__name__}")
    return value


def _words(value) -> str:
    if isinstance(value, str):
        raise TypeError("a shell_line hole takes a sequence of words, not one string")
    return lit.shell_line(*value)


def _sbatch(value) -> str:
    lines = []
    for option, arg in value:
        if not _OPTION.match(option):
            raise ValueError(f"#SBATCH option {option!r} is not a long option's name")
        if arg is None:
            lines.append(f"#SBATCH --{option}")
            continue
        if not str(arg).isprintable():  # sbatch reads the script line by line
            raise ValueError(f"--{option} {str(arg)!r} holds a line break or control character")
        lines.append(f"#SBATCH --{option}={lit.shell_word(str(arg))}")
    return "\n".join(lines)


KINDS = {"markdown": lit.markdown, "markdown_code": lit.markdown_code, "markdown_block": lit.markdown_block,
         "html": lit.html, "html_block": lit.html_block, "html_link": lit.html_link, "shell_word": lit.shell_word,
         "shell_line": _words, "sbatch": _sbatch, "number": _number, "date": _date, "filled": _filled,
         "shell_code": str, "text": str}
_EVERYWHERE = {"number", "date"}
LANGUAGES = {"md": {"markdown", "markdown_code", "markdown_block", "filled"} | _EVERYWHERE,
             "html": {"html", "html_block", "html_link", "filled"} | _EVERYWHERE,
             "sh": {"shell_word", "shell_line", "sbatch", "shell_code", "filled"} | _EVERYWHERE,
             "txt": {"text"} | _EVERYWHERE}


class _Template(string.Template):
    # Only ${kind:name} is a hole: no escape, no bare $name (shell text keeps its $ as written), lower case only
    # (${SLURM_JOB_ID:-?} stays text).
    flags = 0
    pattern = r"""\$(?:(?P<escaped>(?!))|(?P<named>(?!))|\{(?P<braced>[a-z_]+:[a-z_]+)\}|(?P<invalid>(?!)))"""


@functools.lru_cache(maxsize=None)
def _read(path: Path) -> tuple:
    """(language, template, {name: kind}) of one template file, its kinds checked against its language."""
    language = path.name[:-len(".tmpl")].rsplit(".", 1)[-1]
    if not path.name.endswith(".tmpl") or language not in LANGUAGES:
        raise ValueError(f"{path.name}: a template is NAME.LANG.tmpl with LANG one of {sorted(LANGUAGES)}")
    text = path.read_text(encoding="utf-8")
    holes = {}
    for hole in re.findall(r"\$\{([a-z_]+:[a-z_]+)\}", text):
        kind, name = hole.split(":")
        if kind not in LANGUAGES[language]:
            raise ValueError(f"{path.name}: a {kind} hole (${{{hole}}}) in a {language} template")
        if holes.setdefault(name, kind) != kind:
            raise ValueError(f"{path.name}: the hole {name} is of two kinds")
    return language, _Template(text), holes


def fill(module_file: str, name: str, /, **values) -> str:
    """The template ``templates/NAME.tmpl`` beside ``module_file`` (the caller's ``__file__``) with each hole
    ``${kind:key}`` replaced by ``values[key]`` through its kind's function (``KINDS``). A ``Filled`` for every
    language but ``txt`` (plain text: a ``str``, escaped where it lands)."""
    language, template, holes = _read(Path(module_file).resolve().parent / "templates" / f"{name}.tmpl")
    extra = sorted(set(values) - set(holes))
    if extra:
        raise TypeError(f"{name}.tmpl has no hole for {', '.join(extra)}")
    mapping = {f"{kind}:{key}": KINDS[kind](values[key]) for key, kind in holes.items() if key in values}
    text = template.substitute(mapping)  # (a KeyError names a hole left without its value)
    return text if language == "txt" else Filled(text)


def prose(constant: str) -> Filled:
    """The kit's own words, written in the source as one string literal (a test reads every call)."""
    return Filled(constant)


def join(parts, separator: str = "") -> Filled:
    """``Filled`` parts joined by a ``separator`` of blanks, commas and line breaks only."""
    if separator.strip(" ,\n"):
        raise ValueError(f"a join separator holds blanks, commas and line breaks only, not {separator!r}")
    return Filled(separator.join(_filled(p) for p in parts))
