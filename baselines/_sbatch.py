"""``#SBATCH`` lines and the requeue-on-warning wrapper shared by the job scripts the baselines write.

One rule for every value that lands in a job script (DESIGN.md, "names are names, values are literals"): each
value is checked against SLURM's own syntax where it has one (``--time``, ``--mem``, partition and account
names) and then passed through ``agrieval.scoring.text.literals.shell_word`` (the trust rule's one home for shell
words) where it lands, in a directive or in a command. sbatch reads directive values with the shell's quoting
rules (a quoted ``--output='/a b/%a.out'`` is one path: checked on Debian's sbatch 22.05), so a quoted value stays
one value; a value that is not printable (a newline, a line or paragraph separator, a control character) is
refused, since sbatch reads the script line by line.

``run_with_requeue`` runs the task's command in the background so that the batch shell can take SLURM's warning
(``#SBATCH --signal=B:USR1@N``: USR1 to the batch shell only, N seconds before ``--time``): the trap creates a
stop file, the run stops at its next checkpoint and exits ``75``, and the script then requeues its own task
(``scontrol requeue $SLURM_JOB_ID``; with ``#SBATCH --requeue`` the task starts again and resumes).
"""

from __future__ import annotations

import os
import re

from agrieval.scoring.text.template import Filled, fill, prose

EXIT_REQUEUE = 75  # what a run exits with when it stopped at a checkpoint on request (EX_TEMPFAIL)
# The job script's trap creates this file on SLURM's warning; a run checks it at its safe points (the CTV run
# between epochs, plantclef predict between batches), stops there with its work saved and exits EXIT_REQUEUE.
STOP_FILE_ENV = "AGRIEVAL_STOP_FILE"


class StopRequested(Exception):
    """The stop file appeared: the run stopped at a safe point with its work saved; requeued, it resumes."""


def stop_file_present() -> bool:
    path = os.environ.get(STOP_FILE_ENV)
    return bool(path) and os.path.exists(path)

# SLURM's --time formats (sbatch(1)): minutes, minutes:seconds, hours:minutes:seconds, days-hours,
# days-hours:minutes, days-hours:minutes:seconds; "UNLIMITED"/"INFINITE" are not accepted here (the warning
# signal needs an end).
_TIME = re.compile(r"^(?:(?P<d>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+))?)?"
                   r"|(?P<a>\d+)(?::(?P<b>\d+)(?::(?P<c>\d+))?)?)$")
_MEM = re.compile(r"^[1-9][0-9]*[KMGT]?$")  # sbatch --mem: a size, megabytes without a suffix
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")  # partition, account, qos and job names as sites write them
_OPTION = re.compile(r"^--[a-z][a-z0-9-]*$")

# Options the generated script sets itself: a second value would silently win or break the array.
RESERVED = frozenset({"array", "output", "error", "open-mode", "requeue", "no-requeue", "signal", "job-name",
                      "cpus-per-task", "mem", "mem-per-cpu", "mem-per-gpu", "time", "gres", "gpus",
                      "gpus-per-task", "partition", "account", "dependency", "kill-on-invalid-dep", "wrap",
                      "ntasks", "nodes", "chdir"})


# What --sbatch-extra takes, by full name (sbatch(1), SLURM 22.05): scheduling and bookkeeping choices of a site
# or a researcher that change nothing the script relies on (its array, logs, signal, requeue, resources, time).
# "value": --name=VALUE; "flag": --name; "either": both (--exclusive[=user|mcs]).
EXTRA_OPTIONS = {
    "begin": "value", "comment": "value", "constraint": "value", "exclude": "value", "exclusive": "either",
    "licenses": "value", "mail-type": "value", "mail-user": "value", "nice": "either", "nodelist": "value",
    "prefer": "value", "qos": "value", "reservation": "value", "tmp": "value", "wckey": "value",
}


class DirectiveError(ValueError):
    """A value that cannot go into a job script; the message says which option and why."""


def time_seconds(text: str) -> int:
    """``--time`` in seconds, by SLURM's formats; ``DirectiveError`` otherwise.

    >>> time_seconds("04:00:00"), time_seconds("90"), time_seconds("1-12")
    (14400, 5400, 129600)
    """
    m = _TIME.match(text) if isinstance(text, str) else None
    if not m:
        raise DirectiveError(f"--time {text!r} is not a SLURM time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or "
                             "D-HH:MM:SS (e.g. 04:00:00)")
    g = {k: int(v) for k, v in m.groupdict().items() if v is not None}
    if "d" in g:
        seconds = ((g["d"] * 24 + g["dh"]) * 60 + g.get("dm", 0)) * 60 + g.get("ds", 0)
    elif "c" in g:
        seconds = (g["a"] * 60 + g["b"]) * 60 + g["c"]
    else:
        seconds = g["a"] * 60 + g.get("b", 0)
    if seconds <= 0:
        raise DirectiveError(f"--time {text!r} is zero")
    return seconds


def check_mem(text: str) -> str:
    if not isinstance(text, str) or not _MEM.match(text):
        raise DirectiveError(f"--mem {text!r} is not a SLURM size: a number with an optional K, M, G or T "
                             "(megabytes without one), e.g. 16G")
    return text


def check_name(text: str, option: str, *, several: bool = False) -> str:
    """A partition, account or job name (``several``: a comma-separated list, as --partition allows)."""
    parts = text.split(",") if several and isinstance(text, str) else [text]
    if not all(isinstance(p, str) and _NAME.match(p) for p in parts):
        raise DirectiveError(f"--{option} {text!r}: a name of letters, digits, '_', '.' and '-'"
                             + (" (several separated by commas)" if several else ""))
    return text


def check_printable(text: str, what: str) -> str:
    if not text.isprintable():
        raise DirectiveError(f"{what} {text!r} holds a line break or control character, which a job script "
                             "cannot carry")
    return text


def parse_extra(text: str) -> tuple[str, str | None]:
    """An extra directive given as ``--name=value`` or ``--name`` (``--sbatch-extra``): (name, value).

    Only the full name of an option of ``EXTRA_OPTIONS`` passes. sbatch reads ``#SBATCH`` lines with
    ``getopt_long``, which takes any unambiguous prefix of a long option, and the later line wins: compared by
    exact name against what the script sets itself, ``--arr=0-999`` would re-size the array, ``--outp=`` send
    every task's log into one file, ``--sig=`` lose the requeue warning. An allow-list of full names cannot be
    read as another option (getopt_long takes an exact name before any prefix match)."""
    check_printable(text, "--sbatch-extra")
    name, eq, value = text.partition("=")
    if not _OPTION.match(name):
        raise DirectiveError(f"--sbatch-extra {text!r}: write one sbatch long option, --name=value or --name "
                             "(e.g. --mail-type=END, --qos=long, --constraint=a100)")
    option = name[2:]
    if option not in EXTRA_OPTIONS:
        why = ("is set by the generated script (use the command's own option for it)" if option in RESERVED
               else "is not one of the options --sbatch-extra takes (sbatch would read a prefix as the full "
               "option, maybe one the script sets itself)")
        raise DirectiveError(f"--sbatch-extra {text!r}: --{option} {why}; allowed, by full name: "
                             + ", ".join(f"--{o}" for o in sorted(EXTRA_OPTIONS)))
    if EXTRA_OPTIONS[option] == "value" and not (eq and value):
        raise DirectiveError(f"--sbatch-extra {text!r}: --{option} takes a value, --{option}=VALUE")
    if EXTRA_OPTIONS[option] == "flag" and eq:
        raise DirectiveError(f"--sbatch-extra {text!r}: --{option} takes no value")
    return option, (value if eq else None)


def checked(directives: list) -> list:
    """``directives``, (option, value or None) pairs, once every value is one a job script can carry
    (``check_printable``); the script's template writes each ``#SBATCH --option=value`` with the value one shell
    word, as sbatch reads it (``agrieval.scoring.text.template``, kind ``sbatch``)."""
    for option, value in directives:
        if value is not None:
            check_printable(str(value), f"--{option}")
    return list(directives)


def directive(option: str, value: str | int | None = None) -> Filled:
    """One ``#SBATCH --option=value`` line, the value checked and quoted (``checked``, the ``sbatch`` hole)."""
    return script("directives.sh", directives=checked([(option, value)]))


def script(name: str, **values) -> Filled:
    """The job-script template ``baselines/templates/NAME.tmpl`` filled (``agrieval.scoring.text.template``)."""
    return fill(__file__, name, **values)


def requeue_trap() -> Filled:
    """The first lines after ``set -euo pipefail``: from here on SLURM's USR1 warning creates the stop file
    (before the trap, USR1 would end the shell). A requeued attempt keeps its job id: its stale file goes.
    (A file, not a signal to the run: bash starts a background command with SIGINT ignored, and torchrun would
    not pass USR1 on to its ranks.)"""
    return script("requeue_trap.sh")


def run_with_requeue(command: Filled) -> Filled:
    """Shell lines that run ``command`` (a filled template) so that SLURM's USR1 warning (``requeue_trap``)
    ends it at a checkpoint and requeues the task: a run that did not finish (exit status not 0) after the
    warning came is requeued; any other exit status is the task's. The task requeues itself as
    ``ARRAY_INDEX``: an array's first task has ``SLURM_JOB_ID`` equal to the array's id, which ``scontrol
    requeue`` takes for every task of the array (seen on SLURM 22.05)."""
    return script("run_with_requeue.sh", command=command, exit_requeue=EXIT_REQUEUE)


def attempt_header() -> Filled:
    """The line each attempt writes first into the task's (appended) log."""
    return script("attempt_header.sh")


def setup_line(setup: str | None) -> Filled:
    """The user's own shell line (``--setup``, e.g. ``source .venv/bin/activate``), run as written; none."""
    return script("setup_line.sh", setup=setup) if setup else prose("")


__all__ = ["EXIT_REQUEUE", "EXTRA_OPTIONS", "RESERVED", "STOP_FILE_ENV", "DirectiveError", "StopRequested", "stop_file_present", "attempt_header", "check_mem", "check_name",
           "check_printable", "checked", "directive", "parse_extra", "requeue_trap", "run_with_requeue", "script", "setup_line",
           "time_seconds"]
