"""Headless Chromium driven through the DevTools protocol, for the tests that open the pages the kit writes.

The protocol runs over ``--remote-debugging-pipe`` (Chromium reads commands on its fd 3 and writes answers and
events on its fd 4, each message one JSON object ended by a NUL byte): no port, no extra package. ``chromium()``
skips the test with the reason where no Chromium is installed (a laptop), and fails it under
``AGRIEVAL_REQUIRE_BROWSER=1`` (set by ``make test`` where it can install Debian's package, ``make browser``).

``Browser.visit(path)`` opens one page in a fresh tab and gives back a ``Visit``: every URL the page requested
(Network events; http(s) is blocked before it leaves), every console error and uncaught exception, every
dialog a script opened, the images' load state, and a full-page screenshot. Every wait has a deadline.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]
NAMES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--mute-audio", "--remote-debugging-pipe"]
WIDTH, HEIGHT = 1280, 900
MAX_SHOT_HEIGHT = 16000  # Chromium's largest screenshot texture is about 16k pixels a side

# What the page holds, read in the page once it has loaded: every image's state, and the marker a hostile
# payload sets when it runs (the tests' payloads set window.__pwned; an alert() opens a dialog, recorded too).
_STATE = """(selectors => JSON.stringify({
  images: Array.from(document.images).map(i => ({src: i.currentSrc.slice(0, 80), alt: i.alt,
                                                  complete: i.complete, width: i.naturalWidth})),
  pwned: window.__pwned === undefined ? null : String(window.__pwned),
  scripts: document.scripts.length,
  title: document.title,
  texts: Object.fromEntries(selectors.map(s => [s, Array.from(document.querySelectorAll(s), e => e.textContent)])),
}))"""

_TRAMPOLINE = ("import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); os.dup2(w, 4); "
               "os.close(r); os.close(w); os.execv(sys.argv[3], sys.argv[3:])")


def chromium() -> str:
    """The browser's executable; a skip (a failure under AGRIEVAL_REQUIRE_BROWSER=1) where none is installed."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    reason = ("no Chromium here (none of " + ", ".join(NAMES) + " on PATH): `make browser` installs Debian's "
              "package as root with apt-get; elsewhere install Chromium with your system's package manager")
    if os.environ.get("AGRIEVAL_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


class BrowserError(RuntimeError):
    """The browser answered a command with an error, did not answer in time, or went away."""


def _high(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or more (so that moving the copies onto 3 and 4 never clobbers one)."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return copy


@dataclass
class Visit:
    """What one page did (see the module)."""

    url: str
    requests: List[str] = field(default_factory=list)
    failed: List[str] = field(default_factory=list)  # "url: reason" of the requests that did not load
    errors: List[str] = field(default_factory=list)  # console errors, log errors, uncaught exceptions
    dialogs: List[str] = field(default_factory=list)
    images: List[dict] = field(default_factory=list)
    pwned: Optional[str] = None
    scripts: int = 0
    title: str = ""
    texts: dict = field(default_factory=dict)  # {selector: [textContent of each element it matches]}
    screenshot: Optional[Path] = None

    def outside(self, folder: Path) -> List[str]:
        """The requests that leave ``folder``: any scheme but file: and data:, a file outside it."""
        root = folder.resolve()
        bad = []
        for url in self.requests:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme == "data":
                continue
            if parts.scheme == "file" and parts.netloc in ("", "localhost"):
                path = Path(urllib.parse.unquote(parts.path)).resolve()
                if path == root or root in path.parents:
                    continue
            bad.append(url)
        return bad


class Browser:
    """One headless Chromium (the tests' session fixture) and its protocol pipe."""

    def __init__(self, executable: str, profile: Path, log: Path, timeout: float = 30.0):
        self.timeout = timeout
        commands_r, commands_w = (_high(fd) for fd in os.pipe())
        answers_r, answers_w = (_high(fd) for fd in os.pipe())
        # a small Python moves the pipe's ends onto the fds Chromium reads and writes, then becomes Chromium (a
        # shell cannot: dash knows fds 0-9 only)
        argv = [sys.executable, "-c", _TRAMPOLINE, str(commands_r), str(answers_w), executable, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
                "about:blank"]
        self._log = open(log, "wb")
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                        pass_fds=(commands_r, answers_w), start_new_session=True)
        os.close(commands_r)
        os.close(answers_w)
        self._out, self._in = commands_w, answers_r
        self._buffer = b""
        self._events: List[dict] = []
        self._next = 0
        self.log = log
        try:
            self.call("Browser.getVersion", timeout=90)  # a first start on a busy 2-core machine
        except BaseException:
            self._stop()
            raise

    # -- the pipe
    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise BrowserError(f"no message from the browser in time (its log: {self.log})")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser closed its pipe (exit {self.process.poll()}; its log: {self.log})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _send(self, method: str, params: Optional[dict] = None, session: Optional[str] = None) -> int:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        return self._next

    def _keep(self, message: dict) -> None:
        """Keep an event; a dialog a script opened (alert) is dismissed at once, else the page would hang."""
        if "method" not in message:
            return  # the answer to a command sent without waiting (the dismissals below)
        self._events.append(message)
        if message.get("method") == "Page.javascriptDialogOpening":
            self._send("Page.handleJavaScriptDialog", {"accept": False}, message.get("sessionId"))

    def call(self, method: str, params: Optional[dict] = None, session: Optional[str] = None,
             timeout: Optional[float] = None) -> dict:
        """Send one command; its result (the events that arrive meanwhile are kept for ``events``)."""
        self._send(method, params, session)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self._keep(answer)

    def wait_for(self, method: str, session: str, timeout: Optional[float] = None) -> dict:
        """The first event ``method`` of ``session`` (kept ones first); a ``BrowserError`` after the timeout."""
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = 0
        while True:
            for event in self._events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self._events)
            self._keep(self._read(deadline))

    def drain(self, session: str, quiet: float = 0.3) -> List[dict]:
        """Every event of ``session`` so far, after ``quiet`` seconds with no new message; removed from the keep."""
        while select.select([self._in], [], [], quiet)[0] or b"\0" in self._buffer:
            self._keep(self._read(time.monotonic() + self.timeout))
        mine = [e for e in self._events if e.get("sessionId") == session]
        self._events = [e for e in self._events if e.get("sessionId") != session]
        return mine

    # -- pages
    def visit(self, page: Path, shot: Optional[Path] = None, texts: Sequence[str] = ()) -> Visit:
        """Open ``page`` (a file) in a fresh tab; what it requested, logged and holds (see ``Visit``), with the
        text of the elements each CSS selector of ``texts`` matches."""
        url = page.resolve().as_uri()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        try:
            for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
                self.call(method, session=session)
            # nothing leaves the machine: a request to the network is recorded, then refused
            self.call("Network.setBlockedURLs", {"urls": ["http://*", "https://*", "ws://*", "wss://*", "ftp://*"]},
                      session=session)
            self.call("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                             "deviceScaleFactor": 1, "mobile": False}, session=session)
            self.call("Page.navigate", {"url": url}, session=session)
            self.wait_for("Page.loadEventFired", session)
            visit = Visit(url)
            expression = f"{_STATE}({json.dumps(list(texts))})"
            state = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
            if "exceptionDetails" in state:
                raise BrowserError(f"reading the page's state failed: {state['exceptionDetails']}")
            facts = json.loads(state["result"]["value"])
            visit.images, visit.pwned = facts["images"], facts["pwned"]
            visit.scripts, visit.title, visit.texts = facts["scripts"], facts["title"], facts["texts"]
            if shot is not None:
                visit.screenshot = self._screenshot(session, shot)
            self._record(visit, self.drain(session))
            return visit
        finally:
            self.call("Target.closeTarget", {"targetId": target})

    def _screenshot(self, session: str, shot: Path) -> Path:
        size = self.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": WIDTH, "height": min(max(size["height"], HEIGHT), MAX_SHOT_HEIGHT),
                "scale": 1}
        data = self.call("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True},
                         session=session, timeout=60)["data"]
        shot.parent.mkdir(parents=True, exist_ok=True)
        shot.write_bytes(base64.b64decode(data))
        return shot

    @staticmethod
    def _record(visit: Visit, events: List[dict]) -> None:
        urls = {}
        for event in events:
            method, p = event["method"], event.get("params", {})
            if method == "Network.requestWillBeSent":
                urls[p["requestId"]] = p["request"]["url"]
                visit.requests.append(p["request"]["url"])
            elif method == "Network.loadingFailed":
                visit.failed.append(f"{urls.get(p['requestId'], '?')[:120]}: {p.get('errorText')} "
                                    f"{p.get('blockedReason') or ''}".strip())
            elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                visit.errors.append("console." + p["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
                visit.errors.append(f"log ({p['entry']['source']}): {p['entry']['text']} {p['entry'].get('url', '')}")
            elif method == "Runtime.exceptionThrown":
                details = p["exceptionDetails"]
                visit.errors.append("exception: " + details.get("exception", {}).get("description", details["text"]))
            elif method == "Page.javascriptDialogOpening":
                visit.dialogs.append(f"{p['type']}: {p['message']}")

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (BrowserError, OSError):  # gone already: the wait below says so
            pass
        self._stop()

    def _stop(self) -> None:
        """Wait for the browser to exit; kill its process group (started here, its own session) if it does not."""
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait(timeout=10)
        os.close(self._out)
        os.close(self._in)
        self._log.close()
