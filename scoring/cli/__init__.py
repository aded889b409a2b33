"""The ``agrieval`` command line. ``main.cli`` is the entry point."""
