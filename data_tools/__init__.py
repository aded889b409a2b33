"""Curation pipeline of the AgrI Challenge cross-team validation study.

Stages talk through files, so each one runs alone and can be resumed::

    raw team folders -> catalog -> dedup -> resize -> splits -> check-leakage

One public entry point per stage, and what a user's own stage builds on (probing a file, walking a pool, class
names, manifests). ``agrieval data ...`` is the command line. Never imports torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.data_tools import dedup
    from agrieval.data_tools.catalog import build_catalog, read_catalog
    from agrieval.data_tools.classes import ClassMap, canonical, load_class_map
    from agrieval.data_tools.demo_pool import make_demo_pool
    from agrieval.data_tools.errors import DataError
    from agrieval.data_tools.leakage import check_leakage
    from agrieval.data_tools.probe import ProbeResult, probe_file
    from agrieval.data_tools.resize import resize_tree
    from agrieval.data_tools.splits import make_splits
    from agrieval.data_tools.tables import read_table, write_table
    from agrieval.data_tools.versions import library_versions
    from agrieval.data_tools.walk import walk_pool

__all__ = ["build_catalog", "read_catalog", "dedup", "resize_tree", "make_splits", "check_leakage", "probe_file",
           "ProbeResult", "walk_pool", "ClassMap", "load_class_map", "canonical", "read_table", "write_table",
           "make_demo_pool", "library_versions", "DataError"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
