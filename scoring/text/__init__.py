"""Text from inputs (file names, run files, table cells) escaped for the format it lands in.

One module per format, used through its name (``markdown.text``, ``html.text``: one function name per
format), and ``literals``, one quoting function per language of a generated file, the only way a value enters
a program, config or page the kit writes; ``markdown_html`` renders a report's Markdown as one HTML page;
``template`` fills package-data templates through ``literals``. Every sink of
untrusted text goes through one of them. Standard library only (matplotlib inside ``plot``'s functions). The
modules load on first use: every ``agrieval`` command prints through ``tables`` and ``terminal``, and would
otherwise pay for ``literals`` and ``template`` too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.text import (
        file_names,
        html,
        literals,
        markdown,
        markdown_html,
        plot,
        tables,
        template,
        terminal,
    )

__all__ = ["terminal", "markdown", "html", "plot", "tables", "file_names", "literals", "markdown_html", "template"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
