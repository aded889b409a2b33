"""Text from inputs (file names, run files, table cells) escaped for the format it lands in.

One module per format: ``terminal`` (one printable line), ``markdown`` (inline text that is never
markup), ``html`` (text and attribute values), ``plot`` (matplotlib labels with mathtext off); and the
two that build on them: ``tables`` (output tables with stable numbers and cells that never become
spreadsheet formulas, as CSV and Markdown) and ``file_names`` (file names that are not UTF-8, as text that
survives CSV, Parquet and JSON); and ``literals``, one quoting function per language of a generated file
(Python, YAML, shell, HTML, Markdown), the only way a value enters a program, config or page the kit
writes; ``markdown_html``, the HTML page of a report written in the kit's Markdown subset; ``template``, the package-data templates of generated prose and job scripts, each hole filled
through the ``literals`` function its kind names. Every sink of untrusted text goes through one of them. Stdlib only
(matplotlib inside ``plot``'s functions).

Public (``__all__``): the nine modules, used through their name (``markdown.text``, ``html.text``: one
function name per format). There is no internal module.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["terminal", "markdown", "html", "plot", "tables", "file_names", "literals", "markdown_html", "template"]

_HOME = {name: name for name in __all__}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
