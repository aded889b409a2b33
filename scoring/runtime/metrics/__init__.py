"""Metrics, one function each, on sparse label sets (multilabel) or label arrays (multiclass).

The two families share metric names, so they are used through their module (``multilabel.macro_f1``,
``multiclass.macro_f1``), each with its own ``__all__``. Each public function's docstring gives its formula
and a worked example.
"""

from __future__ import annotations

from . import multiclass, multilabel

__all__ = ["multilabel", "multiclass"]
