#!/usr/bin/env bash
# Redraw the committed tiling figures in docs/img/ (shown in docs/plantclef.md). The docs' own command blocks
# draw the same figures under out/, so pasting them never touches a tracked file; this is the one command
# that writes docs/img/. Needs the baselines extra (`make test` installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${VENV:-.venv}/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/python" -m agrieval.baselines.plantclef.synthetic "$work/quadrat.jpg" --size 1536x1024
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --tiling grid:4 \
    --out docs/img/plantclef_tiles_grid4_crop.jpg --max-side 720 --overwrite
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --recipe organisers-tiling \
    --out docs/img/plantclef_tiles_organisers.jpg --max-side 720 --overwrite
"$bin/agrieval" baselines plantclef tiles "$work/quadrat.jpg" --tiling square:3 \
    --out docs/img/plantclef_tiles_winner_square3.jpg --max-side 720 --overwrite
