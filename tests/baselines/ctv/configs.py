"""Helpers of the tests of agrieval.baselines.ctv, importable by name (``conftest`` is a name every test folder uses)."""

from __future__ import annotations


def tiny_config(**kw):
    """The demo preset on the 40 px test pool, single-threaded (CI has 2 busy cores)."""
    from agrieval.baselines.ctv.config import make_config

    values = dict(arch="tiny_cnn", protocol="toto", fold="alpha", epochs=3, batch_size=8, threads=1,
                  deterministic=True)
    values.update(kw)
    return make_config("demo", **values)
