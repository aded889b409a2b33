"""The participant's validator: ``python validate.py submission.csv``, with Python 3.8+ and numpy alone.

One file holds the grading runtime (embedded, ``vendoring.embedded_runtime``), the competition's frozen
definition and the test ids (sorted: the sample submission already lists them all), so the participant
checks a file exactly as the grader reads it, ids included, without installing anything but numpy.
Every value lands in the generated Python as a literal (``agrieval.scoring.text.literals.python``).
"""

from __future__ import annotations

from agrieval.scoring.authoring import _vendoring as vendoring
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit

__all__ = ["validator_py", "VALIDATOR_NAME", "VALIDATE_CMD"]

VALIDATOR_NAME = "validate.py"
VALIDATE_CMD = "python validate.py submission.csv"

_HEAD = ('"""Check a submission for the competition _NAME names before uploading it:\n'
         'python validate.py submission.csv\n\n'
         'Needs Python 3.8 or later and numpy; nothing else. Written by `agrieval bundle`: the grader\'s own\n'
         'reading rules, the competition\'s definition and the test ids are inside this file.\n"""\n')

_MAIN = '''

import sys as _sys

from agrieval_runtime.definition import thaw as _thaw
from agrieval_runtime.validate import validate_file as _validate_file

_DEFINITION = _thaw(_FROZEN, "the validator's embedded definition")


def main(argv=None):
    """Exit 0 when the file would be accepted (warnings printed), 1 with every problem, 2 on a usage error."""
    args = list(_sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python validate.py SUBMISSION.csv   (checks the format and the ids of " + _NAME + ")",
              file=_sys.stderr)
        return 2
    problems = _validate_file(args[0], _DEFINITION, test_ids=_TEST_IDS)
    for p in problems:
        print(p.render())
    errors = [p for p in problems if p.severity == "error"]
    print(("REJECTED: %d problem(s) to fix" % len(errors)) if errors else
          "OK: the file would be accepted (format and ids checked)")
    return 1 if errors else 0


if __name__ == "__main__":
    _sys.exit(main())
'''


def validator_py(inputs) -> str:
    """The text of ``validate.py`` for ``inputs`` (``files.Inputs``)."""
    d = inputs.definition
    # No value in the docstring or any comment: the name and the ids are literals (scoring.text.literals).
    ids = ", ".join(lit.python(i) for i in sorted(inputs.solution.ids))
    values = f"\n_NAME = {lit.python(d.name)}\n_FROZEN = {lit.python(freeze(d))}\n_TEST_IDS = [{ids}]\n"
    return _HEAD + vendoring.embedded_runtime() + values + _MAIN
