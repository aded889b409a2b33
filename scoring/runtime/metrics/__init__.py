"""Metrics, one function each, on sparse label sets (multilabel) or label arrays (multiclass).

Public (``__all__``): the two modules, ``multilabel`` (PlantCLEF: ``transect_f1``, ``sample_f1``,
``micro_f1``, ``macro_f1`` ...) and ``multiclass`` (AgrI: ``accuracy``, ``balanced_accuracy``, ``macro_f1``
...), each with its own ``__all__``: the two families share metric names, so they are used through their
module (``multilabel.macro_f1``, ``multiclass.macro_f1``). Each public function's docstring gives its
formula and a worked example.
"""

from ..lazy_exports import lazy_exports

__all__ = ["multilabel", "multiclass"]

_HOME = {"multilabel": "multilabel", "multiclass": "multiclass"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
