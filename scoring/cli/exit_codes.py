"""The exit codes of every ``agrieval`` command (``agrieval.scoring.cli.errors`` prints the line that goes with them).

====  =====================================================================
0     done (scored, valid, written)
1     the input was read and rejected: an invalid submission, a rejected
      table or run folder, a failed check (leakage, unknown class folders)
2     the command line is wrong: an unknown or bad option, a file or folder
      that does not exist, an unknown competition (with a "did you mean"),
      an output path the output policy refuses, a device that is not there
3     host-side: a bad solution or competition definition, a missing extra
      (the line names the ``pip install`` command), a report or result that
      could not be written whole (a full disk, a closed or broken stdout),
      an internal error
130   interrupted (Ctrl-C)
====  =====================================================================
"""

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_HOST = 0, 1, 2, 3
EXIT_INTERRUPTED = 130
