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
"""
