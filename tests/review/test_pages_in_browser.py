"""The night page and the history page of real simulated nights, read as a person reads them: in
headless Chromium at a desk's width and a phone's, nothing cut off, shot to PNG for a person to see.

The PNGs land in the test's own temporary directory (printed) and, when SKILLOPT_SLEEP_SCREENSHOTS
names a directory, are copied there too: ``SKILLOPT_SLEEP_SCREENSHOTS=/tmp/shots pytest -m slow
tests/review/test_pages_in_browser.py``.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from pathlib import Path

import pytest

from .browser import Browser, find_chromium

WIDTHS = (1280, 390)
# read when the module loads: the autouse home fixture clears every SKILLOPT_SLEEP_* but the home
KEEP = os.environ.get("SKILLOPT_SLEEP_SCREENSHOTS", "")


def _demo(cli, root: Path) -> tuple[Path, dict[str, str]]:
    """The demo night, in ``root``; returns its project and the environment that finds its home."""
    r = cli("demo", "--dir", str(root))
    assert r.code == 0, r.err
    return root / "project", {"SKILLOPT_SLEEP_HOME": str(root / "home")}


def _night_page(root: Path) -> Path:
    (page,) = sorted((root / "home").rglob("report.html"))
    return page


def _answers(page: str) -> list[str]:
    return [html.unescape(a) for a in re.findall(r'<pre class="answer">(.*?)</pre>', page, re.S)]


def test_the_night_pages_answers_keep_their_line_breaks(cli, tmp_path):
    _demo(cli, tmp_path / "demo")
    answers = _answers(_night_page(tmp_path / "demo").read_text(encoding="utf-8"))
    code = [a for a in answers if "```python" in a]
    assert code, answers
    assert all("\\n" not in a for a in answers), answers[0]
    assert "```python\nimport logging\n" in "".join(code)


@pytest.mark.slow
def test_the_history_pages_charts_have_axis_values_and_a_legend_in_words(cli, tmp_path):
    _history(cli, tmp_path)
    page = (tmp_path / "history.html").read_text(encoding="utf-8")
    chart = page.split("<h2>Nights over time</h2>")[1].split("<table")[0]
    ticks = re.findall(r'<text [^>]*text-anchor="end">(\d+)</text>', chart)
    assert ticks[0] == "0" and len(ticks) >= 3, ticks
    assert "$0.0000</text>" in chart
    legend = chart.split("</svg>")[1]
    assert "edits proposed" in legend and "accepted" in legend and "cost" in legend
    assert '<td class="nw">no_evidence</td>' in page or '<td class="nw">accept</td>' in page


def _history(cli, tmp_path: Path) -> tuple[Path, Path]:
    """The demo night adopted, then two more simulated nights: a history whose charts have data."""
    project, env = _demo(cli, tmp_path / "demo")
    night = _night_page(tmp_path / "demo")
    assert cli("adopt", "--project", str(project), env=env).code == 0
    for _ in range(2):
        r = cli("run", "--project", str(project), "--backend", "simulated", env=env)
        assert r.code == 0, r.err
        cli("adopt", "--project", str(project), env=env)  # may find nothing to adopt: fine
    out = tmp_path / "history.html"
    r = cli("report", "--project", str(project), "--out", str(out), env=env)
    assert r.code == 0, r.err
    return night, out


def _shoot(pages: dict[str, Path], tmp_path: Path) -> list[str]:
    """Every page at every width: what was cut off, and each PNG written (and kept if asked)."""
    browser = find_chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    problems = []
    with Browser(browser, tmp_path / "profile") as chromium:
        for name, page in pages.items():
            for width in WIDTHS:
                look = chromium.look(page.as_uri(), width)
                assert look.width == width, f"laid out {look.width} px wide, not {width}"
                problems += [f"{name} at {width} px: {cut}" for cut in look.cut]
                (shots / f"{name}-{width}.png").write_bytes(look.png)
    if KEEP:
        Path(KEEP).mkdir(parents=True, exist_ok=True)
        for png in shots.iterdir():
            shutil.copy(png, Path(KEEP) / png.name)
    print(f"screenshots: {shots}" + (f" and {KEEP}" if KEEP else ""))
    return problems


@pytest.mark.slow
def test_the_night_page_and_the_history_page_cut_nothing_off_at_a_desk_or_on_a_phone(cli, tmp_path):
    night, history = _history(cli, tmp_path)
    problems = _shoot({"night": night, "history": history}, tmp_path)
    assert problems == [], "\n".join(problems)
    for png in (tmp_path / "screenshots").iterdir():
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, png
