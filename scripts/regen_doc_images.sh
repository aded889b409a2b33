#!/usr/bin/env bash
# Redraw the committed figures in docs/img/: the tiling figures (docs/plantclef.md) and the CTV demo's
# (docs/ctv_reporting.md). The docs' own command blocks draw the same figures under out/, so pasting them
# never touches a tracked file; this is the one command that writes docs/img/. Needs the baselines extra (`make test` installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${VENV:-.venv}/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/python" -m agrieval.baselines.plantclef._synthetic "$work/quadrat.jpg" --size 1536x1024
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --tiling grid:4 \
    --out docs/img/plantclef_tiles_grid4_crop.jpg --max-side 720 --overwrite
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --recipe organisers-tiling \
    --out docs/img/plantclef_tiles_organisers.jpg --max-side 720 --overwrite
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --tiling square:3 \
    --out docs/img/plantclef_tiles_winner_square3.jpg --max-side 720 --overwrite
# The CTV figures of docs/ctv_reporting.md: the CPU demo with 3 seeds (about 3 minutes on 2 cores).
"$bin/agrieval" baselines ctv demo --out "$work/ctv-demo" --seeds 3 --epochs 3 > /dev/null
cp "$work/ctv-demo/report/plots/accuracy_on_the_line.png" docs/img/ctv_accuracy_on_the_line.png
cp "$work/ctv-demo/report/plots/learning_curves.png" docs/img/ctv_learning_curves.png
