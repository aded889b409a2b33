#!/usr/bin/env bash
# Run every platform's own scoring code against freshly built bundles (docs/platform_checks.md).
#   scripts/platform_checks/run_all.sh CODABENCH_REPO CODALAB_V1_WORKER_REPO EVALAI_REPO COMPETITIONS_REPO [OUT]
# Each *_REPO is a fetched repository (bare git dir or checkout); nothing of theirs is copied into this one.
# Builds throwaway venvs under $VENVS (default /tmp/platform-check-venvs; needs the package index and the
# pyenv interpreters of .ci/interpreters), the bundles and one JSON report per run under OUT (default
# /tmp/platform-checks). Run from the repository root; AGRIEVAL names the command that builds the bundles.
# The platforms' code runs without PYTHONPATH: nothing of agrieval is importable there but the bundle.
# CODALAB_SITE (optional): codalab/codalab-competitions, for the v1 bundle check (the site reads the bundle).
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,7p "$0"; exit 2; }
CODABENCH=$1 V1=$2 EVALAI=$3 COMPETITIONS=$4 OUT=${5:-/tmp/platform-checks}
VENVS=${VENVS:-/tmp/platform-check-venvs}
PY=/root/.pyenv/versions
AGRIEVAL=${AGRIEVAL:-agrieval}
IMAGE=$PWD/.venv-platforms/py3.9-numpy1.22/bin/python   # codalab/codalab-legacy:py39
HERE=scripts/platform_checks
SUB=reference_submissions/plantclef2025/submissions
CORPUS=tests/platforms/corpus
mkdir -p "$VENVS" "$OUT"

venv() {  # venv NAME PYTHON PACKAGES...
  local name=$1 python=$2; shift 2
  [ -x "$VENVS/$name/bin/python" ] || { env -u PYTHONPATH "$python" -m venv "$VENVS/$name" &&
    env -u PYTHONPATH "$VENVS/$name/bin/pip" install -q "$@"; }
}
venv worker "$PY/3.13.0/bin/python" celery==5.6.2 'requests>=2.32.4,<3' websockets==16.0.0 pyyaml==6.0.3 \
  'loguru>=0.7.3,<0.8' 'docker>=7.1.0,<8' 'rich>=14.2.0,<15'
venv v1 "$PY/3.9.18/bin/python" requests pyyaml==5.4.1 psutil
venv hf "$PY/3.10.13/bin/python" huggingface_hub==0.24.6 pandas==2.2.2 pydantic==2.8.2 scikit-learn==1.5.1 loguru==0.7.2
# The loaders that create a competition from the upload (Django for settings and file helpers only).
venv loaders "$PY/3.11.7/bin/python" django djangorestframework pyyaml python-dateutil requests
for v in 3.7.16 3.8.18 3.9.18; do venv "evalai${v%.*}" "$PY/$v/bin/python" requests pyyaml==5.4.1; done

rm -rf "$OUT/bundles" && mkdir -p "$OUT/bundles"
# Set limits (not the platforms' defaults): each loader's report shows them as the platform reads them.
LIMITS=(--per-day 3 --total 30 --time-limit 120 --selection-limit 3)
for p in codabench codalab evalai hf kaggle; do
  "$AGRIEVAL" bundle $p -c plantclef2025 -s reference_submissions/plantclef2025/solution.csv "${LIMITS[@]}" \
    "$OUT/bundles/$p" >/dev/null
done
"$AGRIEVAL" bundle codabench -c plantclef2025 -s reference_submissions/plantclef2025/solution.csv --split private \
  "$OUT/bundles/codabench-private" >/dev/null
"$AGRIEVAL" bundle codabench -c plantclef2025 -s reference_submissions/plantclef2025/solution.csv --auto-approve \
  "$OUT/bundles/codabench-auto" >/dev/null

run() {  # run REPORT PYTHON SCRIPT ARGS...
  local report=$1; shift
  env -u PYTHONPATH "$@" > "$OUT/$report.json" 2> "$OUT/$report.log" && echo "wrote $OUT/$report.json" || { echo "FAILED: $report (see $OUT/$report.log)"; return 1; }
}
run codabench "$VENVS/worker/bin/python" $HERE/codabench_worker.py "$CODABENCH" "$OUT/bundles/codabench" $IMAGE \
  $SUB/partial.csv $CORPUS/formula_ids.csv $CORPUS/zip_good.zip $CORPUS/zip_absolute.zip $CORPUS/zip_of_zip.zip \
  $CORPUS/zip_symlink.zip $CORPUS/zip_several_files.zip $CORPUS/zip_empty.zip
run codabench_private "$VENVS/worker/bin/python" $HERE/codabench_worker.py "$CODABENCH" \
  "$OUT/bundles/codabench-private" $IMAGE $SUB/partial.csv
[ -x "$PY/3.7.16/bin/python" ] && run codabench_py37 "$VENVS/worker/bin/python" $HERE/codabench_worker.py \
  "$CODABENCH" "$OUT/bundles/codabench" "$PY/3.7.16/bin/python" $SUB/partial.csv
run codalab_v1 "$VENVS/v1/bin/python" $HERE/codalab_v1_worker.py "$V1" "$OUT/bundles/codalab" $IMAGE \
  $SUB/partial.csv $CORPUS/formula_ids.csv
for v in 3.7 3.8 3.9; do
  run "evalai_py$v" "$VENVS/evalai$v/bin/python" $HERE/evalai_worker.py "$EVALAI" "$OUT/bundles/evalai" \
    test:$SUB/partial.csv dev:$SUB/partial.csv dev:$CORPUS/tsv.csv
done
cp $SUB/partial.csv "$OUT/partial.CSV"
run hf "$VENVS/hf/bin/python" $HERE/hf_competitions.py "$COMPETITIONS" "$OUT/bundles/hf" $SUB/partial.csv \
  $CORPUS/zip_good.zip "$OUT/partial.CSV" $CORPUS/tsv.csv

# The one file each organizer uploads, through the platform's own loader or validator.
run codabench_unpacker "$VENVS/loaders/bin/python" $HERE/codabench_unpacker.py "$CODABENCH" \
  "$OUT/bundles/codabench/codabench_competition.zip"
run evalai_config "$VENVS/loaders/bin/python" $HERE/evalai_config.py "$EVALAI" "$OUT/bundles/evalai/evalai_challenge.zip"
run hf_competition_info "$VENVS/hf/bin/python" $HERE/hf_competition_info.py "$COMPETITIONS" "$OUT/bundles/hf"
if [ -n "${CODALAB_SITE:-}" ]; then
  run codalab_v1_bundle "$VENVS/loaders/bin/python" $HERE/codalab_v1_bundle.py "$CODALAB_SITE" \
    "$OUT/bundles/codalab/codalab_competition.zip"
  # Around the reveal: who may submit, what is scored, which submission a board ranks (their functions, by source)
  run reveal_rules "$VENVS/loaders/bin/python" $HERE/reveal_rules.py "$CODABENCH" "$EVALAI" "$CODALAB_SITE" \
    "$COMPETITIONS" "$OUT/bundles"
fi
# Every bundle's sample submission passes `agrieval validate` against the solution.
for p in codabench codalab evalai hf kaggle; do
  "$AGRIEVAL" validate "$OUT/bundles/$p/sample_submission.csv" --competition plantclef2025 \
    --solution reference_submissions/plantclef2025/solution.csv > "$OUT/validate_$p.txt" && echo "validated $p"
done
