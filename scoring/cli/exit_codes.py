"""The exit codes of every ``agrieval`` command (``scoring.cli.contract`` says what each means)."""

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_HOST = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130
