"""Metrics, one function each, on sparse label sets (multilabel) or label arrays (multiclass)."""
