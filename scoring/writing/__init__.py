"""Where and how the kit writes files: the output policy every command goes through (``policy``), paths built
from table cells kept inside their folder (``table_paths``), figures (``figures``) and submissions in a
competition's exact format (``submission``). The file-level mechanism (temporary, fsync, check, rename) is
``agrieval.scoring.runtime.atomic``, which the grading runtime needs too."""
