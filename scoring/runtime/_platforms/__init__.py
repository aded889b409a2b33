"""One adapter per grading platform, each calling the guard (``scoring/runtime/guard.py``) the way that platform calls a scorer."""
