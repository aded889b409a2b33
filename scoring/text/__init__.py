"""Text from inputs (file names, run files, table cells) escaped for the format it lands in.

One module per format, used through its name (``markdown.text``, ``html.text``: one function name per
format), and ``literals``, one quoting function per language of a generated file, the only way a value enters
a program, config or page the kit writes; ``markdown_html`` renders a report's Markdown as one HTML page;
``template`` fills package-data templates through ``literals``. Every sink of
untrusted text goes through one of them. Standard library only (matplotlib inside ``plot``'s functions).
"""

from __future__ import annotations

from agrieval.scoring.text import file_names, html, literals, markdown, markdown_html, plot, tables, template, terminal

__all__ = ["terminal", "markdown", "html", "plot", "tables", "file_names", "literals", "markdown_html", "template"]
