"""``agrieval data ...``: the curation pipeline, one subcommand per stage.

Exit codes (``agrieval.scoring.cli._failures``): 0 done; 1 an input was rejected or a
check failed (leaks found, unknown class folders); 2 usage error, including a
refused output path; 3 host-side (a missing extra, an internal error). The
message is ``error [<code>] ...`` and names the file. Every output path is
checked by ``agrieval.scoring.writing.policy`` before anything is written, and every
path built from a table cell by ``agrieval.scoring.writing.table_paths`` (``unsafe_path``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agrieval.data_tools._keyed_ids import default_key_path
from agrieval.scoring.cli.group import ContractGroup, document
from agrieval.scoring.text.file_names import display_name, unescape_name
from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: data_tools.catalog,
# data_tools.dedup, data_tools.resize (they load PIL, concurrent, concurrent.futures); data_tools.classes (it loads
# tomllib); data_tools.probe (it loads PIL, imagehash, pillow_heif); data_tools.tables (it loads concurrent,
# concurrent.futures, pandas); data_tools.versions, data_tools.notebook_versions (they load email,
# importlib.metadata, zipfile); data_tools.splits, data_tools.leakage (they load concurrent, concurrent.futures,
# email); data_tools.demo_pool (it loads PIL).

WORKERS = click.option("--workers", type=click.IntRange(min=1), default=None,
                       help="Processes to use (default: all cores).")
PROGRESS = click.option("--progress/--no-progress", default=True, show_default=True,
                        help="Progress bar on a terminal, plain lines otherwise.")
OVERWRITE = click.option("--overwrite", is_flag=True,
                          help="Replace existing output files. Never source data, never a file the command reads.")
MAX_PIXELS = click.option("--max-pixels", type=click.IntRange(min=1), default=None,
                          help="Decoded pixels per worker [default: 64000000, about 340 MB]; larger JPEGs are "
                               "decoded reduced, other larger files are reported unreadable.")
CLASS_MAP = click.option("--class-map", type=click.Path(dir_okay=False, path_type=Path), default=None,
                         help="A TOML laid over the shipped class map (see `agrieval data classes`).")


@click.group(cls=ContractGroup, context_settings={"help_option_names": ["-h", "--help"]})
def data() -> None:
    """Curate a multi-team image pool: catalog -> dedup -> resize -> splits -> check-leakage.

    Try it without real data: `agrieval data demo-pool demo/`. Source folders are
    never modified (except by `dedup --move-to ... --apply`, which you ask for).
    """


@data.command()
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="catalog.csv or catalog.parquet")
@WORKERS
@click.option("--resume", is_flag=True, help="Reuse rows of OUTPUT whose file size and mtime are unchanged.")
@click.option("--fast", is_flag=True, help="Hash JPEGs from a reduced decode (Image.draft); reports agreement "
              "with exact hashes on a sample.")
@CLASS_MAP
@OVERWRITE
@MAX_PIXELS
@PROGRESS
def catalog(root, output, workers, resume, fast, class_map, overwrite, max_pixels, progress):
    """Catalog every image of ROOT/<team>/<class>/[<sub-category>/]<image>.

    Symbolic links are never followed: each is listed as skipped, with where it points.
    """
    from agrieval.data_tools.catalog import build_catalog, summarize_catalog
    from agrieval.data_tools.classes import load_class_map
    from agrieval.data_tools.probe import DEFAULT_MAX_PIXELS

    plan = OutputPlan(overwrite=overwrite, inputs=[class_map] if class_map else [])
    df = build_catalog(root, output, workers=workers, resume=resume, fast=fast, progress=progress,
                       class_map=load_class_map(class_map), max_pixels=max_pixels or DEFAULT_MAX_PIXELS, plan=plan)
    click.echo(summarize_catalog(df))
    click.echo(display_name(f"wrote {output}"))


@data.command(name="dedup")
@click.argument("catalog_file", metavar="CATALOG", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="dedup table to write (.csv or .parquet): every catalog row with keep/drop and its group.")
@click.option("--preset", type=click.Choice(["paper", "official"]), default="paper", show_default=True,
              help="Keep rule: the paper's text, or the public notebook's.")
@click.option("--radius", type=click.IntRange(0, 64), default=0, show_default=True,
              help="Hamming radius; 0 groups identical hashes only (the study's rule).")
@click.option("--team-order", default=None, help="Comma-separated team priority for the paper rule "
              "(default: alphabetical).")
@click.option("--deprioritise", multiple=True, help="Team that loses ties under the official rule (repeatable; "
              "default AI-4o, as the notebook; --deprioritise '' for none).")
@click.option("--order", type=click.Choice(["sorted", "walk"]), default="sorted", show_default=True,
              help="official: the last tie-break, catalog (sorted) order or the notebook's os.walk order.")
@click.option("--move-to", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Move dropped files to DIR/<team>/<class>/... (dry run unless --apply).")
@click.option("--link-to", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Symlink dropped files into DIR for review (dry run unless --apply).")
@click.option("--apply", "do_apply", is_flag=True, help="Really move or link (default: print what would happen).")
@OVERWRITE
def dedup_cmd(catalog_file, output, preset, radius, team_order, deprioritise, order, move_to, link_to, do_apply,
              overwrite):
    """Group duplicate images and decide which copy to keep (writes keep/drop, never deletes).

    Moves and links never replace a file (not even with --overwrite, which is for OUTPUT only).
    """
    from agrieval.data_tools.catalog import read_catalog
    from agrieval.data_tools.dedup import dedup, execute_drops, plan_drops, summarize_dedup
    from agrieval.data_tools.tables import write_table
    from agrieval.data_tools.versions import write_versions

    if move_to and link_to:
        raise click.UsageError("give --move-to or --link-to, not both")
    order_of_teams = [t.strip() for t in team_order.split(",") if t.strip()] if team_order else None
    demoted = [t for t in deprioritise if t] if deprioritise else None
    cat = read_catalog(catalog_file)
    plan = OutputPlan(overwrite=overwrite, sources=[unescape_name(r) for r in sorted(set(cat["root"]))], inputs=[catalog_file])
    plan.claim(output, what="dedup table")
    df = dedup(cat, preset=preset, radius=radius, team_order=order_of_teams, deprioritise=demoted, order=order)
    target, how = (move_to, "move") if move_to else (link_to, "link")
    pairs = plan_drops(df, target, how=how, plan=plan) if target is not None else []  # refused before writing
    write_table(df, output)
    write_versions(output, "dedup")
    if preset == "official":
        _version_warnings("dedup", catalog_file)
    click.echo(summarize_dedup(df))
    click.echo(display_name(f"wrote {output}"))
    if target is not None:
        if do_apply:
            execute_drops(pairs, how=how)
        verb = {"move": "moved", "link": "linked"}[how] if do_apply else f"would {how}"
        for src, dst in pairs:
            click.echo(display_name(f"{verb}: {src} -> {dst}"))
        if not do_apply:
            click.echo(f"dry run: {len(pairs)} file(s); add --apply to {how} them")


def _version_warnings(stage: str, catalog_file: Path | None = None) -> None:
    """--preset official: say which library differs from the notebooks' and what that can change."""
    from agrieval.data_tools._notebook_versions import version_warnings
    from agrieval.data_tools.versions import read_versions

    lines = version_warnings(stage)
    if catalog_file is not None:  # the catalog's pHashes were made with the Pillow it recorded
        recorded = read_versions(catalog_file)
        lines += (version_warnings("catalog", recorded, where=f"made {catalog_file.name}") if recorded is not None
                  else version_warnings("catalog", where=f"here ({catalog_file.name} records no versions)"))
    for line in lines:
        click.echo(line, err=True)


@data.command()
@click.argument("table", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--size", type=click.IntRange(min=8), default=336, show_default=True,
              help="Side of the square outputs in pixels (shorter side resized, centre crop).")
@click.option("--resume", is_flag=True, help="Keep outputs of an interrupted run that are already complete.")
@click.option("--exif-transpose", is_flag=True, help="Apply the EXIF orientation first (the study did not).")
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Source -> output manifest (default OUT/resize_manifest.csv).")
@click.option("--preset", type=click.Choice(["paper", "official"]), default="paper", show_default=True,
              help="paper: long side rounded, integer crop offset; official: the public notebook's pixels bit for "
                   "bit (long side truncated, float crop offset rounded half to even by Pillow).")
@WORKERS
@OVERWRITE
@MAX_PIXELS
@PROGRESS
def resize(table, out, size, resume, exif_transpose, manifest, preset, workers, overwrite, max_pixels, progress):
    """Resize the kept files of a dedup table (or all readable files of a catalog) into OUT.

    OUT may not be inside a catalogued root (the copies would be catalogued as new photos).
    """
    from agrieval.data_tools.catalog import read_catalog
    from agrieval.data_tools.probe import DEFAULT_MAX_PIXELS
    from agrieval.data_tools.resize import resize_tree, summarize_resize

    plan = OutputPlan(overwrite=overwrite, inputs=[table])
    m = resize_tree(read_catalog(table), out, size=size, resume=resume, progress=progress, workers=workers,
                    exif_transpose=exif_transpose, manifest=manifest, rule=preset,
                    max_pixels=max_pixels or DEFAULT_MAX_PIXELS, plan=plan)
    if preset == "official":
        _version_warnings("resize")
    click.echo(summarize_resize(m))
    if (m["status"] == "error").any():
        sys.exit(1)  # some files could not be resized: listed above


@data.command()
@click.argument("source", required=False, type=click.Path(exists=True, path_type=Path))
@CLASS_MAP
def classes(source, class_map):
    """Show the class normalisation map, or how SOURCE's class folders map (a pool folder or a catalog).

    Unknown folders are listed (exit 1), never guessed: add them to your own TOML
    (`classes = [...]` and an `[aliases]` table) and pass it with --class-map.
    """
    from agrieval.data_tools.classes import canonical, load_class_map

    cmap = load_class_map(class_map)
    if source is None:
        click.echo(f"# {cmap.source}")
        click.echo(cmap.to_toml(), nl=False)
        return
    if source.is_dir():
        folders = sorted(_class_folders(source))
    else:
        folders = _catalog_folders(source)
    unknown = []
    for team, folder in folders:
        cls = cmap.normalise(folder)
        click.echo(display_name(f"{team}/{folder} -> {cls or 'UNKNOWN (canonical form: ' + canonical(folder) + ')'}"))
        if cls is None:
            unknown.append(display_name(f"{team}/{folder}"))
    if unknown:
        click.echo(f"{len(unknown)} unknown class folder(s): {unknown}", err=True)
        sys.exit(1)


def _catalog_folders(catalog_file: Path) -> list[tuple[str, str]]:
    """The (team, class folder) pairs of a catalog, sorted (the catalog is read with pandas)."""
    from agrieval.data_tools.catalog import read_catalog

    df = read_catalog(catalog_file)
    return sorted(set(zip(df["team"], df["class_raw"])))


def _class_folders(root: Path) -> set[tuple[str, str]]:
    """(team, class folder) pairs under ``root``, by the catalog's rules: links and hidden names are not
    followed, a folder that cannot be listed is reported and passed over."""
    def subfolders(folder: Path) -> list[Path]:
        try:
            return [p for p in folder.iterdir()
                    if not p.name.startswith(".") and not p.is_symlink() and p.is_dir()]
        except OSError as exc:
            click.echo(display_name(f"skipped: {folder}: folder cannot be listed ({exc.strerror or exc})"), err=True)
            return []

    return {(t.name, c.name) for t in subfolders(root) for c in subfolders(t)}


@data.command()
@click.argument("catalog_file", metavar="CLEAN_CATALOG", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--protocol", type=click.Choice(["toto", "loto", "both"]), required=True,
              help="TOTO (train on one team), LOTO (leave one team out), or both.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder; folds go to OUTPUT/<protocol>/<team>.csv")
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of the train/val draws (one per fold).")
@click.option("--val-fraction", type=float, default=0.3, show_default=True,
              help="Share of the training pool held out for validation.")
@click.option("--preset", type=click.Choice(["paper", "official"]), default="paper", show_default=True,
              help="paper: seeded per fold, LOTO stratified by team and class; official: the public script's "
                   "scikit-learn train_test_split per fold (same seed every fold, stratified by class).")
@click.option("--stratify", type=click.Choice(["team_class", "class"]), default=None,
              help="Overrides the preset's LOTO stratification.")
@click.option("--listing", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="official only: the image order the script saw (one path per line, its Path.iterdir order); "
                   "default: sorted.")
@click.option("--id-key", "id_key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The pool's secret key of the image ids (created there, mode 0600, on first use; reused so "
                   "that reruns give the same ids). Keep it private, never publish it. Default: "
                   "CLEAN_CATALOG.id-key, beside the catalog.")
@click.option("--without-team", "without_team", default=None, metavar="TEAM",
              help="Leave TEAM out of the pool first: the folds of the other teams alone, for leave-one-team-out "
                   "model selection within a LOTO fold whose test team is TEAM (docs/ctv_reporting.md). Same "
                   "key, same ids.")
@OVERWRITE
def splits(catalog_file, protocol, output, seed, val_fraction, preset, stratify, listing, id_key, without_team,
           overwrite):
    """TOTO/LOTO split manifests (image_id, path, team, class, split) of a clean catalog.

    image_id is img-<keyed hash of the path>: it carries neither the class nor the team (their columns do),
    and without the key nobody can compute it from a guessed path.
    """
    from agrieval.data_tools.catalog import read_catalog
    from agrieval.data_tools.splits import SPLIT_PRESETS, make_splits, summarize_splits, without

    df = read_catalog(catalog_file)
    if without_team is not None:
        df = without(df, without_team)
    stratify = stratify or SPLIT_PRESETS[preset]["stratify"]
    plan = OutputPlan(overwrite=overwrite, inputs=[catalog_file])
    for proto in (["toto", "loto"] if protocol == "both" else [protocol]):
        paths = make_splits(df, proto, output, seed=seed, val_fraction=val_fraction, stratify=stratify,
                            method=SPLIT_PRESETS[preset]["method"], listing=listing, plan=plan,
                            id_key=id_key or default_key_path(catalog_file))
        click.echo(summarize_splits(paths))


@data.command(name="check-leakage")
@click.argument("splits_dir", metavar="SPLITS", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--catalog", "catalog_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              required=True, help="Catalog of the images the splits point to (for the pHashes).")
@click.option("--radius", type=click.IntRange(0, 64), default=0, show_default=True,
              help="Also flag pHashes within this Hamming distance.")
@click.option("--show", type=click.IntRange(min=0), default=50, show_default=True, help="Pairs to print.")
@click.option("--boundary", "boundaries", type=click.Choice(["train/test", "train/val", "val/test"]), multiple=True,
              help="Check only these boundaries (repeat the option). Default: all three; val/test matters because "
                   "val picks the checkpoint.")
def check_leakage_cmd(splits_dir, catalog_file, radius, show, boundaries):
    """Fail (exit 1) when an image or a copy of it sits on both sides of train/test, train/val or val/test."""
    from agrieval.data_tools.catalog import read_catalog
    from agrieval.data_tools.leakage import BOUNDARIES, check_leakage

    boundaries = tuple(b for b in BOUNDARIES if b in boundaries) if boundaries else tuple(BOUNDARIES)
    leaks = check_leakage(splits_dir, read_catalog(catalog_file), radius=radius, boundaries=boundaries)
    if not leaks:
        names = ", ".join(boundaries[:-1]) + " or " + boundaries[-1] if len(boundaries) > 1 else boundaries[0]
        click.echo(f"no leakage: no image or pHash (radius {radius}) crosses a {names} boundary")
        return
    for leak in leaks[:show]:
        click.echo(leak.render())
    folds = sorted({(l.protocol, l.fold) for l in leaks})
    click.echo(f"LEAKAGE: {len(leaks)} pair(s) in {len(folds)} fold(s)"
               + (f" ({len(leaks) - show} not shown)" if len(leaks) > show else ""), err=True)
    sys.exit(1)


@data.command(name="demo-pool")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--teams", type=click.IntRange(min=2), default=4, show_default=True, help="Teams in the pool.")
@click.option("--per-class", type=click.IntRange(min=2), default=6, show_default=True,
              help="Photos per team and class.")
@click.option("--size", type=click.IntRange(min=32), default=96, show_default=True, help="Photo side in pixels.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the synthetic photos.")
def demo_pool(out, teams, per_class, size, seed):
    """Write a small synthetic multi-team pool (all six classes, with real-world quirks) to OUT."""
    from agrieval.data_tools.demo_pool import make_demo_pool

    make_demo_pool(out, teams=teams, per_class=per_class, size=size, seed=seed)
    n = sum(1 for p in Path(out).rglob("*") if p.is_file())
    click.echo(f"wrote {n} files under {out}: {teams} teams x 6 classes x {per_class} photos, plus duplicates, "
               "a PNG, a HEIC (when pillow-heif can encode) and a truncated JPEG")


document(data, {name: (example, "Exit codes: 0 done; 1 an input was rejected or a check failed (leaks, unknown class folders, unreadable files); 2 usage error (bad option, missing file, refused output path); 3 host-side problem (missing 'data' extra, internal error).") for name, example in {
    "": "agrieval data demo-pool demo && agrieval data catalog demo -o catalog.csv",
    "catalog": "agrieval data catalog demo -o catalog.csv",
    "dedup": "agrieval data dedup catalog.csv -o dedup.csv --link-to review",
    "resize": "agrieval data resize dedup.csv clean",
    "classes": "agrieval data classes demo",
    "splits": "agrieval data splits clean.csv --protocol both -o splits",
    "check-leakage": "agrieval data check-leakage splits --catalog clean.csv --radius 4",
    "demo-pool": "agrieval data demo-pool demo",
}.items()})
