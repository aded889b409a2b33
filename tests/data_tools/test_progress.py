"""The kit's one progress display off a terminal (a log): few lines, each with the rate, an ETA until the end."""

import re

from agrieval.data_tools import _progress as progress_module
from agrieval.data_tools._progress import Progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_a_line_at_most_every_every_s_with_an_eta_and_one_at_the_end(monkeypatch, capsys):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    with Progress(10, "resize", unit="img", every_s=10.0) as bar:
        for _ in range(10):
            clock.now += 4.0  # 4 s an item: a line every third item at most
            bar.update()
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["resize: 3/10 img (0.2 img/s, ETA 28 s)",   # 12 s in, 7 items left at 0.25/s
                     "resize: 6/10 img (0.2 img/s, ETA 16 s)",
                     "resize: 9/10 img (0.2 img/s, ETA 4 s)",
                     "resize: 10/10 img (0.2 img/s)"]             # the end: no ETA


def test_the_unit_is_the_callers_and_nothing_shows_when_disabled_or_empty(capsys):
    with Progress(2, "sweep", unit="setting") as bar:
        bar.update(2)
    [line] = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"sweep: 2/2 setting \(\d+(\.\d)? setting/s\)", line)
    with Progress(5, "predict", enabled=False) as bar:
        bar.update(5)
    with Progress(0, "catalog") as bar:
        pass
    assert capsys.readouterr().err == ""
