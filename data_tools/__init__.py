"""Curation pipeline of the AgrI Challenge cross-team validation study.

Stages talk through files, so each one runs alone and can be resumed::

    raw team folders -> catalog -> dedup -> resize -> splits -> check-leakage

One module per stage (``catalog``, ``dedup``, ``resize``, ``splits``,
``leakage``), plus what they share: ``walk`` (the folder layout), ``probe``
(one file: format, size, EXIF device, pHash), ``hamming`` (near-duplicate
search), ``classes`` (class-name normalisation, data in ``class_map.toml``),
``keep_rules`` (which copy of a duplicate group survives), ``tables``
(CSV/Parquet manifests), ``parallel`` (process pool with progress), ``progress`` (the kit's one progress
display, which the baselines use too) and
``demo_pool`` (a synthetic pool to try everything on). ``cli`` holds
``agrieval data ...``.

Never imports torch.

Public (``__all__``, imported on first use): one entry point per stage, ``build_catalog`` and
``read_catalog``, the module ``dedup`` (``dedup.dedup``), ``resize_tree``, ``make_splits``, ``check_leakage``;
and what a user's own stage builds on: ``probe_file`` and ``ProbeResult``, ``walk_pool``, ``ClassMap``,
``load_class_map`` and ``canonical``, ``read_table`` and ``write_table``, ``make_demo_pool``,
``library_versions``, ``DataError``.

Internal (may change without notice): ``cli`` (``agrieval data ...`` is the contract), ``hamming``, ``heif``,
``keep_rules``, ``keyed_ids`` (the keyed image ids of ``splits``), ``notebook_versions``, ``parallel``,
``pillow_warnings``, ``progress``, ``shuffle_split``, ``untrusted_images`` (images opened as the one
opening rule says).
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["build_catalog", "read_catalog", "dedup", "resize_tree", "make_splits", "check_leakage", "probe_file",
           "ProbeResult", "walk_pool", "ClassMap", "load_class_map", "canonical", "read_table", "write_table",
           "make_demo_pool", "library_versions", "DataError"]

_HOME = {"build_catalog": "catalog", "read_catalog": "catalog", "dedup": "dedup", "resize_tree": "resize",
         "make_splits": "splits", "check_leakage": "leakage", "probe_file": "probe", "ProbeResult": "probe",
         "walk_pool": "walk", "ClassMap": "classes", "load_class_map": "classes", "canonical": "classes",
         "read_table": "tables", "write_table": "tables", "make_demo_pool": "demo_pool",
         "library_versions": "versions", "DataError": "errors"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
