"""``agrieval baselines plantclef``: predict, merge-tiles, aggregate, sweep, recipes, tiles, demo, slurm.

One module per command; ``options`` holds the options they share (the aggregation options generated from
``AggregationConfig``), ``errors`` the mapping of known errors to codes and exit codes.
"""

from __future__ import annotations

import click

from agrieval.baselines.plantclef._cli.aggregate import aggregate_cmd
from agrieval.baselines.plantclef._cli.demo import demo
from agrieval.baselines.plantclef._cli.predict import merge_tiles, predict
from agrieval.baselines.plantclef._cli.recipes import recipes
from agrieval.baselines.plantclef._cli.slurm import slurm
from agrieval.baselines.plantclef._cli.sweep import sweep
from agrieval.baselines.plantclef._cli.tiles import tiles
from agrieval.scoring.cli.group import ContractGroup, document


@click.group(cls=ContractGroup)
def plantclef() -> None:
    """DINOv2 tiling predictor for PlantCLEF quadrats: images -> validated submission."""


for _command in (predict, merge_tiles, aggregate_cmd, sweep, recipes, tiles, demo, slurm):
    plantclef.add_command(_command)

_PROBLEMS = ("2 usage or input problem (bad option, missing file or checkpoint, unreadable image, a device that is "
             "not there); 3 host-side problem (bad definition or solution, missing 'baselines' extra).")
BUILDS_SUBMISSION = ("Exit codes: 0 done; 1 the submission built was rejected by the validator (report it); "
                     + _PROBLEMS)
NO_SUBMISSION = "Exit codes: 0 done; " + _PROBLEMS

document(plantclef, {
    "": ("agrieval baselines plantclef demo --out plantclef-demo --quiet", BUILDS_SUBMISSION),
    "predict": ("agrieval baselines plantclef predict test_images/ --checkpoint model.pth.tar --class-mapping "
                "class_mapping.txt --out submission.csv", BUILDS_SUBMISSION),
    "aggregate": ("agrieval baselines plantclef aggregate plantclef-demo/tile_scores.parquet --recipe dsgt-2025-vote "
                  "--out vote.csv", BUILDS_SUBMISSION),
    "sweep": ("agrieval baselines plantclef sweep plantclef-demo/tile_scores.parquet --solution "
              "plantclef-demo/solution.csv", NO_SUBMISSION),
    "merge-tiles": ("agrieval baselines plantclef merge-tiles out/tiles.shard-0-of-2.parquet "
                    "out/tiles.shard-1-of-2.parquet --out out/tiles.parquet", NO_SUBMISSION),
    "recipes": ("agrieval baselines plantclef recipes --markdown", NO_SUBMISSION),
    "tiles": ("agrieval baselines plantclef tiles quadrat.jpg --tiling grid:4 --out tiles.jpg", NO_SUBMISSION),
    "demo": ("agrieval baselines plantclef demo --out plantclef-demo --quiet", BUILDS_SUBMISSION),
    "slurm": ("agrieval baselines plantclef slurm test_images/ --shards 8 --work out -o plantclef.sbatch "
              "--predict-args '--checkpoint model.pth.tar --class-mapping class_mapping.txt' --aggregate-args "
              "'--recipe dsgt-2025-vote'", NO_SUBMISSION),
})
