#!/usr/bin/env bash
# Build one venv per line of .ci/interpreters under .venv-platforms/<label>: numpy (pinned) + pytest + hypothesis.
# Fails loudly when an interpreter is missing: the runtime's portability is part of what CI proves.
# Prints one line per venv: its label and the interpreter path the docs use (docs/organizers.md), with versions.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .venv-platforms
grep -v '^\s*#' .ci/interpreters | grep -v '^\s*$' | while read -r label python numpy _; do
    venv=".venv-platforms/$label"
    stamp="$venv/.installed-$numpy"
    if [ ! -x "$python" ]; then
        echo "error: interpreter $python for $label (.ci/interpreters) is missing on this machine" >&2
        exit 1
    fi
    if [ ! -f "$stamp" ]; then
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$numpy" pytest hypothesis
        touch "$stamp"
    fi
    # The runtime as the tests import it (agrieval.scoring.runtime) without installing the kit: a link to this
    # checkout's scoring/ under an `agrieval` namespace folder (the platform Pythons get no pandas or pydantic,
    # and the runtime imports none of them).
    # .venv-platforms may be a link to another checkout's venvs (tests/newcomer/clone.py lends them to a clone):
    # those keep pointing at their own checkout, never at a clone that is deleted after the test.
    if [ ! -L .venv-platforms ]; then
        site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        mkdir -p "$site/agrieval"
        ln -sfn "$PWD/scoring" "$site/agrieval/scoring"
    fi
    echo "$label: $venv/bin/python ($("$venv/bin/python" -c 'import sys, numpy; print("Python", sys.version.split()[0] + ", numpy", numpy.__version__)'))"
done
