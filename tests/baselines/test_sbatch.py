"""``--sbatch-extra`` compared as sbatch parses it: sbatch reads ``#SBATCH`` lines with ``getopt_long`` (any
unambiguous prefix of a long option is that option; the later line wins), so only the full names of an allow-list
pass. Checked against the real ``sbatch --test-only -vv`` where a SLURM runs here (``tests/slurm_cluster.py``)."""

from __future__ import annotations

import re
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agrieval.baselines import _sbatch as sbatch
from tests import slurm_cluster

# Each passed the exact-name check before the allow-list (seen with sbatch --test-only -vv, SLURM 22.05): the
# array outgrew runs.tsv, every task logged into one file, the requeue signal was lost.
ATTACKS = ["--arr=0-999", "--outp=/tmp/one.log", "--sig=B:USR2@5", "--no-req", "--dep=afterok:1", "--err=/tmp/e",
           "--open=truncate", "--req", "--job=x", "--cpus-per=1", "--gre=gpu:8", "--tim=1", "--ch=/", "--wr=id",
           "--kill-on=yes", "--part=p", "--acc=a", "--ntasks-per-node=4", "--export=ALL,LD_PRELOAD=/x.so",
           "--container=/x", "--uid=0", "--get-user-env", "--parsable", "--test-only", "--hold", "--wait"]
# The head a generated script writes first (baselines/ctv/slurm.py): what an extra line must never change.
HEAD = [("array", "0-3"), ("output", "/tmp/agrieval-sbatch-test/%a.out"), ("open-mode", "append"),
        ("requeue", None), ("signal", "B:USR1@300")]
VALUES = {"begin": "now+1hour", "comment": "CTV study, run 2", "constraint": "a100", "exclude": "node9",
          "exclusive": None, "licenses": "matlab", "mail-type": "END,FAIL", "mail-user": "me@example.org",
          "nice": "10", "nodelist": "vm", "prefer": "a100", "qos": "normal", "reservation": "r1", "tmp": "1G",
          "wckey": "study"}


@pytest.mark.parametrize("text", ATTACKS)
def test_a_prefix_or_an_option_outside_the_allow_list_is_refused_with_the_allowed_names(text):
    with pytest.raises(sbatch.DirectiveError) as exc:
        sbatch.parse_extra(text)
    assert "--mail-type, --mail-user" in str(exc.value) and "--qos" in str(exc.value)


@given(st.sampled_from(sorted(sbatch.RESERVED)), st.integers(1, 30))
def test_every_prefix_of_a_reserved_option_is_refused(name, n):
    with pytest.raises(sbatch.DirectiveError):
        sbatch.parse_extra(f"--{name[:n]}=x")


def test_every_allowed_option_passes_with_its_value():
    assert set(VALUES) == set(sbatch.EXTRA_OPTIONS)  # the SLURM check below tries every one of them
    for name, value in VALUES.items():
        text = f"--{name}" + ("" if value is None else f"={value}")
        assert sbatch.parse_extra(text) == (name, value)


@pytest.mark.parametrize("text, message", [("--qos", "takes a value"), ("--qos=", "takes a value"),
                                           ("--mail-type", "takes a value")])
def test_an_option_that_needs_a_value_refuses_none(text, message):
    with pytest.raises(sbatch.DirectiveError, match=message):
        sbatch.parse_extra(text)


def _defined_options(tmp_path, lines: list[str]) -> dict[str, str]:
    script = tmp_path / "job.sh"
    script.write_text("\n".join(["#!/bin/bash", *lines, "true", ""]))
    p = subprocess.run(["sbatch", "--test-only", "-vv", str(script)], capture_output=True, text=True, timeout=60)
    table = p.stderr.split("defined options", 1)[-1].split("end of defined options", 1)[0]
    return dict(m.groups() for m in re.finditer(r"^sbatch: (\S+)\s+: (.*)$", table, re.M))


def test_sbatch_reads_each_allowed_option_as_itself_and_keeps_the_scripts_own(tmp_path):
    slurm_cluster.cluster()
    head = [sbatch.directive(n, v) for n, v in HEAD]
    extra = [sbatch.directive(*sbatch.parse_extra(f"--{n}" + ("" if v is None else f"={v}"))) for n, v in VALUES.items()]
    seen = _defined_options(tmp_path, head + extra)
    assert {n: seen.get(n) for n in ("array", "output", "open-mode", "signal")} == {
        "array": "0-3", "output": "/tmp/agrieval-sbatch-test/%a.out", "open-mode": "a", "signal": "B:USR1@300"}, seen
    assert "no-requeue" not in seen and set(VALUES) <= set(seen), seen


@pytest.mark.parametrize("text, option, changed", [("--arr=0-999", "array", "0-999"),
                                                   ("--outp=/tmp/one.log", "output", "/tmp/one.log"),
                                                   ("--sig=B:USR2@5", "signal", "B:USR2@5"),
                                                   ("--no-req", "no-requeue", "no-requeue")])
def test_what_the_allow_list_refuses_would_have_overridden_the_scripts_own_line(tmp_path, text, option, changed):
    """The danger is real: sbatch reads the raw prefix as the script's own option, the later line winning."""
    slurm_cluster.cluster()
    seen = _defined_options(tmp_path, [sbatch.directive(n, v) for n, v in HEAD] + [f"#SBATCH {text}"])
    assert seen.get(option) == changed, seen
    with pytest.raises(sbatch.DirectiveError):
        sbatch.parse_extra(text)
