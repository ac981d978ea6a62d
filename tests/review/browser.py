"""A page as a person sees it: headless Chromium driven over its DevTools pipe, standard library only.

Chromium's headless window is never narrower than 500 px, so ``--window-size=390,...`` lays a page
out at 500 px and crops it. A phone is emulated here instead (``Emulation.setDeviceMetricsOverride``
with ``mobile``: the page's viewport meta applies, as on a phone), through ``--remote-debugging-pipe``:
commands go in on the browser's fd 3 and answers come out on its fd 4, as JSON ended by a NUL byte.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

# Run in the page once it has loaded, with every <details> opened (an answer hidden in a closed one
# is laid out at zero size and would pass any check). Returns what a reader would find cut off.
CHECK_JS = r"""
(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const cut = [];
  const name = el => el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
    ? '.' + String(el.className).trim().split(/\s+/).join('.') : '');
  const said = el => (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
  for (const svg of document.querySelectorAll('svg')) {
    const vb = svg.viewBox.baseVal;
    const box = svg.getBoundingClientRect();
    const scale = box.width / vb.width;
    for (const t of svg.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 11 || px > 17) cut.push(`svg text drawn at ${px.toFixed(1)} px: "${said(t)}"`);
      const b = t.getBBox();
      if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5
          || b.y + b.height > vb.y + vb.height + 0.5) {
        cut.push(`svg text outside its viewBox: "${said(t)}"`);
      }
    }
    const holder = svg.parentElement;
    const scrolls = getComputedStyle(holder).overflowX !== 'visible';
    if (!scrolls && box.right > holder.getBoundingClientRect().right + 0.5) {
      cut.push(`svg wider than its container: "${said(svg.querySelector('title') || svg)}"`);
    }
  }
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') || el.clientWidth === 0) continue;
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    if (scrolls && !el.matches('pre.answer')) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      cut.push(`${name(el)} overflows its box (${el.scrollWidth} > ${el.clientWidth}): "${said(el)}"`);
    }
  }
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\S+/g;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) cut.push(`"${m[0]}" broken across lines in a table cell`);
      }
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1) {
    cut.push(`the page scrolls sideways (${page.scrollWidth} > ${page.clientWidth})`);
  }
  return {cut, height: Math.ceil(page.scrollHeight), width: page.clientWidth};
})()
"""


def find_chromium() -> str | None:
    """The Chromium the machine has (Debian's ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass(frozen=True)
class Look:
    """One page at one width: what was found cut off, the laid-out width, and a full-page PNG."""

    cut: list[str]
    width: int
    png: bytes


class Browser:
    """One headless Chromium; ``look(url, width)`` per page and width. Use as a context manager."""

    def __init__(self, binary: str, profile: Path, extra: tuple[str, ...] = ()) -> None:
        to_browser_r, self._out = os.pipe()
        self._in, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: its fd 3 reads our commands, its fd 4 answers
            reads, writes = os.dup(to_browser_r), os.dup(from_browser_w)  # never 3 or 4 itself
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        # about:blank first: without a page to open, Debian's Chromium opens its start page online
        self.proc = subprocess.Popen(
            [
                binary,
                *FLAGS,
                *extra,
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            preexec_fn=wire,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._out)
        os.close(self._in)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not answer in time")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events seen meanwhile are kept)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def _wait_for(self, method: str, session: str) -> None:
        deadline = time.monotonic() + 60
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[: i + 1]
                    return
            self.events.clear()
            self.events.append(self._read(deadline))

    def look(self, url: str, width: int) -> Look:
        """Open ``url`` in a new tab laid out ``width`` px wide (a phone below 800), check it, shoot it."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 800}
        self.call("Emulation.setDeviceMetricsOverride", session, **metrics)
        self.call("Page.enable", session)
        self.call("Page.navigate", session, url=url)
        self._wait_for("Page.loadEventFired", session)
        answer = self.call("Runtime.evaluate", session, expression=CHECK_JS, returnByValue=True)
        found = answer["result"]["value"]
        height = min(int(found["height"]), 16000)
        self.call("Emulation.setDeviceMetricsOverride", session, **{**metrics, "height": height})
        shot = self.call("Page.captureScreenshot", session, format="png")
        self.call("Target.closeTarget", targetId=target)
        return Look(list(found["cut"]), int(found["width"]), base64.b64decode(shot["data"]))
