"""``tiles``: draw the tiles of one image (boxes, the part the model sees, padding)."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.baselines.plantclef._cli.errors import InputProblem, guard
from agrieval.baselines.plantclef._cli.options import apply_recipe, tiling_options
from agrieval.baselines.plantclef.geometry import parse_border, parse_level
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, load_rgb
from agrieval.baselines.plantclef.recipes import RECIPES

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.draw (it
# loads PIL).


@click.command()
@click.argument("image", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@tiling_options
@click.option("--recipe", type=click.Choice(sorted(RECIPES)), default=None, help="Take the recipe's tiling.")
@click.option("--input-size", type=click.IntRange(min=1), default=518, show_default=True,
              help="Model input, for the tile count and scale note.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("tiles.png"), show_default=True, help='Drawing to write (PNG, or JPEG for .jpg).')
@click.option("--max-side", type=click.IntRange(min=64), default=1200, show_default=True,
              help="Longest side of the drawing (the image is scaled down to it).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@click.pass_context
@guard
def tiles(ctx, image, out, input_size, max_side, overwrite, **kw):
    """Draw the tiles of IMAGE (boxes, the part the model sees, padding) into --out (PNG, or JPEG for .jpg)."""
    from agrieval.baselines.plantclef._draw import draw_tiles

    apply_recipe(ctx, kw)
    border, percent = parse_border(kw["crop_border"])
    cfg = PreprocessConfig(levels=tuple(parse_level(t) for t in kw["tiling"]), input_size=input_size,
                           tile_policy=kw["tile_policy"], border_mode=kw["border_mode"], border=border,
                           border_percent=percent, centre_crop=kw["centre_crop"])
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} already exists; pass --overwrite to replace it")
    try:
        picture = load_rgb(image)
    except (OSError, ValueError) as exc:
        raise InputProblem(f"{image}: cannot be decoded as an image ({exc})") from None
    summary = draw_tiles(picture, cfg, out, max_side=max_side)
    click.echo(summary)
    click.echo(f"drawing: {out}")
