"""What a whole competition needs besides the scorer: its title, dates and phase names, its pages and a logo.

Codabench, CodaLab and EvalAI create a competition only from a bundle that names these (their loaders refuse a
bundle without a title, a terms page or a logo: ``docs/platform_checks.md``). The pages are HTML built from the
definition; every value of the organizer's or of the definition is escaped where it lands.
"""

from __future__ import annotations

import datetime as dt
import struct
import zlib
from dataclasses import dataclass

from agrieval.scoring.authoring._bundles.files import Inputs
from agrieval.scoring.authoring._bundles.metric_pages import definitions_html, group_name, participant_html
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.text.template import Filled, fill, join, prose

DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
# Placeholder dates (the README says to set them): fixed, so that the same inputs give the same bundle.
DEFAULT_DEV_START = "2027-01-01 00:00:00"
DEFAULT_FINAL_START = "2027-03-01 00:00:00"
DEFAULT_END = "2027-04-01 00:00:00"
REVEAL_DAYS = 365  # how long the private leaderboard phase lasts by default (Codabench; --reveal-end)


@dataclass(frozen=True)
class Options:
    """The organizer's choices for the competition around the scorer."""

    title: str | None = None
    description: str = ""  # the overview page's paragraph under the title (text: escaped where it lands)
    dev_start: str = DEFAULT_DEV_START
    final_start: str = DEFAULT_FINAL_START
    end: str = DEFAULT_END
    dev_name: str = "Development"
    final_name: str = "Final"
    reveal_name: str = "Private leaderboard"
    # codabench: registration_auto_approve false. On by default: every bundle has a private phase, and with
    # auto-approval anyone who registers after the end is approved at once and can be ranked there.
    require_approval: bool = True
    reveal_end: str = ""  # codabench: end of the private-leaderboard phase; "" is REVEAL_DAYS after the end
    # Submission limits and the time limit (seconds); None: the platform's default (submission_limits.py)
    per_day: int | None = None
    total: int | None = None
    time_limit: int | None = None
    selection_limit: int | None = None  # final submissions a team may select (hf, kaggle)

    def dates(self) -> tuple:
        """(dev start, dev end, final start, end) as datetimes: the development phase ends one minute before the
        final one starts (Codabench refuses a phase starting when the previous one ends, base_unpacker.py
        ~130-135)."""
        parsed = []
        for name, text in (("--dev-start", self.dev_start), ("--final-start", self.final_start),
                           ("--end", self.end)):
            try:
                parsed.append(dt.datetime.strptime(text, DATE_FORMAT))
            except ValueError:
                raise HostError("definition_invalid", f"{name} {text!r} is not a date written "
                                "YYYY-MM-DD HH:MM:SS (UTC)") from None
        dev_start, final_start, end = parsed
        if not dev_start < final_start - dt.timedelta(minutes=1) < end:
            raise HostError("definition_invalid", f"the dates must follow each other: --dev-start {self.dev_start} "
                            f"< --final-start {self.final_start} < --end {self.end}")
        return dev_start, final_start - dt.timedelta(minutes=1), final_start, end

    def text_dates(self) -> tuple:
        return tuple(d.strftime(DATE_FORMAT) for d in self.dates())

    def reveal_text(self) -> str:
        """When the private ranking appears: one minute after the end (a phase may not start when the previous
        one ends, base_unpacker.py ~130-135)."""
        return (self.dates()[3] + dt.timedelta(minutes=1)).strftime(DATE_FORMAT)

    def reveal_end_text(self) -> str:
        """When the private-leaderboard phase ends: ``reveal_end``, or ``REVEAL_DAYS`` after the end. It needs
        an end: Codabench's site task that stores phase statuses (competitions/tasks.py
        ``do_phase_migrations`` ~672-700) makes a phase current only while ``start <= now < end``, so a phase
        without an end would show no status once it starts."""
        start = self.dates()[3] + dt.timedelta(minutes=1)
        if not self.reveal_end:
            return (start + dt.timedelta(days=REVEAL_DAYS)).strftime(DATE_FORMAT)
        try:
            end = dt.datetime.strptime(self.reveal_end, DATE_FORMAT)
        except ValueError:
            raise HostError("definition_invalid", f"--reveal-end {self.reveal_end!r} is not a date written "
                            "YYYY-MM-DD HH:MM:SS (UTC)") from None
        if end <= start:
            raise HostError("definition_invalid", f"--reveal-end {self.reveal_end} must come after the private "
                            f"leaderboard's start, {start.strftime(DATE_FORMAT)} (one minute after --end)")
        return self.reveal_end

    def title_of(self, inputs: Inputs) -> str:
        return self.title or inputs.definition.title or inputs.definition.name


def pages(inputs: Inputs, options: Options, *, upload_how: Filled, validate_cmd: str, sample_note: str,
          sample_where: str) -> dict:
    """``{page: html}`` for overview, evaluation, data and terms (``templates/*.html.tmpl``)."""
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    title = options.title_of(inputs)
    # the definition's title under the page's title only where it says something else (not the title twice)
    subtitle = fill(__file__, "paragraph.html", text=d.title or d.name) if (d.title or d.name) != title else prose("")
    about = fill(__file__, "paragraph.html", text=options.description) if options.description else prose("")
    link = fill(__file__, "source_link.html", url=d.url) if d.url else prose("")  # a link only to an http(s) URL
    if d.task == "multiclass":
        fmt = fill(__file__, "format_multiclass.html", column=d.prediction_column)
    else:
        fmt = fill(__file__, "format_multilabel.html", column=d.prediction_column,
                   example="[1, 2, 3]" if d.list_syntax == "python-list" else "1 2 3")
    extra = _participant_blocks(inputs, options)
    return {
        "overview": fill(__file__, "overview.html", title=title, subtitle=subtitle, about=about, link=link,
                         dev_name=options.dev_name, final_name=options.final_name, dev_start=dev_start,
                         dev_end=dev_end, final_start=final_start, end=end),
        "evaluation": fill(__file__, "evaluation.html", primary=d.primary_metric,
                           better="higher" if d.higher_is_better else "lower",
                           columns=join(fill(__file__, "column_item.html", key=k) for k in inputs.keys),
                           definitions=extra["evaluation"]),
        "data": fill(__file__, "data.html", header=d.delimiter.join(d.expected_columns), delimiter=repr(d.delimiter),
                     format=fmt, sample_where=sample_where, sample_note=sample_note, upload_how=upload_how,
                     validate_cmd=validate_cmd, participant=extra["data"]),
        "terms": fill(__file__, "terms.html"),
    }


def _participant_blocks(inputs: Inputs, options: Options) -> dict:
    """The metric definitions (evaluation page), the format examples, limits and timeline (data page)."""
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    labels = example_labels(d)
    limits = limits_sentence(d, options.per_day, options.total, options.time_limit)
    timeline = fill(__file__, "timeline.txt", dev_name=options.dev_name, final_name=options.final_name,
                    dev_start=dev_start, dev_end=dev_end, final_start=final_start, end=end,
                    reveal=options.reveal_text())
    return {"evaluation": definitions_html(list(inputs.keys), d.primary_metric, group_name(d)),
            "data": participant_html(d, sorted(inputs.solution.ids), labels, limits, timeline)}


def logo_png() -> bytes:
    """A 64x64 one-colour PNG (Codabench and CodaLab need a logo file; EvalAI takes one): replace it at will."""
    width = height = 64
    raw = b"".join(b"\x00" + bytes((46, 125, 50)) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def example_labels(d) -> tuple:
    """Two labels of the vocabulary for the pages' example files (the shortest, for short lines)."""
    vocabulary = sorted(d.vocabulary or (), key=lambda v: (len(str(v)), str(v)))
    return ((str(vocabulary[0]), str(vocabulary[1])) if len(vocabulary) > 1
            else ("1", "2") if d.label_type == "int" else ("a", "b"))


def limits_sentence(d, per_day: int | None, total: int | None, time_limit: int | None) -> str:
    """What the pages say of the limits (the README's section gives the platform's defaults and sources)."""
    day = (f"At most {per_day} submissions a day" if per_day is not None
           else "The platform's daily submission limit")
    all_ = f", {total} in total" if total is not None else ""
    return fill(__file__, "limits.txt", day=day, total=all_, max_bytes=f"{d.limits.max_bytes:,}",
                max_rows=f"{d.limits.max_rows:,}", seconds=f"{time_limit or d.limits.max_seconds:g}")
