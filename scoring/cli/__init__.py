"""The ``agrieval`` command line. ``main.cli`` is the entry point.

One file per command (``score``, ``validate``, ``grade``, ``competitions``, ``demo``, ``bundle``, ``leaderboard``,
``rank_agreement``, ``audit``, ``ctv``), and four that serve them all:

* ``group``: the click group of every command tree; its ``main`` is the one place where a failure becomes the
  contract's line and exit code; ``--help`` endings; lazily imported subcommands;
* ``failures``: the exit codes, ``CommandError``, the one mapping from an exception to its line and code, the
  missing-extra line, the catalogue of codes (docs/errors.md);
* ``output``: what reaches stdout and stderr: whole writes, reports held until decided, the ``--json``
  promise, library warnings as one line, the terminal rendering of a score report;
* ``options``: the options several commands share (``--competition``, ``--json``, ``--format``/``--dpi``) and
  what they name (the definition; a solution checked against it).
"""
