"""The own grading server: one SQLite store per competition (``store.py``, ``schema.py``) and what is done with it.

``agrieval server init`` makes the store (``settings.py``: competition, solution, limits, ``timeline.py``);
``agrieval grade UPLOAD --team T --store DB`` (``intake.grade_stored``) grades an upload in two short
transactions with the grading between them unlocked, under ``limits.py``; ``agrieval server select|void``
(``intake``), ``board`` (``boards.py``, the rules of ``selection.py``), ``export`` (``export.py``),
``rescore`` (``rescore.py``) and ``import`` of the former log (``migrate_log.py``, ``submission_log.py``) read
and write the same store. See docs/own_server.md.
"""
