"""report.html as a person reads it: plain words, a picture per edit, in a real browser at two widths."""

from __future__ import annotations

import http.server
import threading
from typing import ClassVar

import pytest

from skillopt_sleep.review.report import render_markdown
from skillopt_sleep.review.report_html import render_html

from .browser import Browser, find_chromium
from .evidence_night import NIGHT, earlier_rules
from .test_report import DIFFS, _Checker

# Chromium's own background calls (network time, component updates, sign-in) go through the proxy
# whatever the flags say; they are not the page's. Anything else the page asked for is.
BROWSER_OWN = (
    "clients2.google.com",
    "update.googleapis.com",
    "accounts.google.com",
    "www.google.com",
    "optimizationguide-pa.googleapis.com",
    "content-autofill.googleapis.com",
    "redirector.gvt1.com",
)


def _page() -> str:
    return render_html(NIGHT, DIFFS, earlier_rules())


def test_report_with_evidence_golden(golden):
    golden("review/report-evidence.html", _page())
    golden("review/report-evidence.md", render_markdown(NIGHT, DIFFS))


def test_evidence_reads_in_plain_words_with_the_numbers_one_click_away():
    page = _page()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "Where it acts (3): 18 of 20 attempts right, was 3 of 20." in page
    assert page.count("<details><summary>Statistics</summary>") == 3  # the three edits tested
    assert "8.92e-06" in page.split("<details><summary>Statistics</summary>", 1)[1]
    assert "&lt;=" not in page.split("<h2>Skipped</h2>")[0].split("Statistics")[0]


def test_an_edit_is_staged_not_applied_until_adopted_and_refused_ones_say_so():
    page = _page()
    assert page.count('class="badge staged">staged</span>') == 2 and "applied" not in page
    assert "refused: harmful" in page
    md = render_markdown(NIGHT, DIFFS)
    assert "**staged**" in md and "[applied]" not in md and "[staged]" in md


def test_an_accepted_edit_whose_passes_elsewhere_fell_is_flagged():
    page = _page()
    title_card = page.split("The README title is always")[1].split("</section>")[0]
    assert "Passes on the other tasks fell (38 of 40 to 35 of 40)" in title_card
    pytest_card = page.split("never bare")[1].split("</section>")[0]
    assert "fell" not in pytest_card


def test_skipped_lists_the_edits_over_budget_and_each_edit_shows_a_task_before_and_after():
    page = _page()
    skipped = page.split("<h2>Skipped</h2>")[1].split("<h2>")[0]
    assert "Keep summaries under five lines." in skipped and "over budget" in skipped
    assert "A task it was made for: Run the tests for the parser" in page
    assert "Ran `pytest`: 12 passed." in page and "Ran `pytest -q`: 12 passed." in page


def test_rules_adopted_earlier_show_their_verdict_and_weekly_corrections():
    page = _page()
    rules = page.split("Rules adopted earlier")[1]
    assert "1 need attention" in rules.split("</h2>")[0]
    assert "working" in rules and "ignored" in rules and rules.count("<svg") == 2
    assert "adopted</text>" in rules


def test_an_answer_keeps_its_line_breaks_and_shows_anything_else_escaped():
    answer = "Done.\r\n\n```python\nprint('<b>')\n\tx = 1\n```\x1b[31m\u200b"
    first = NIGHT.evidence[0]
    assert first.example is not None
    example = first.example.model_copy(update={"after": answer})
    evidence = [first.model_copy(update={"example": example}), *NIGHT.evidence[1:]]
    page = render_html(NIGHT.model_copy(update={"evidence": evidence}), DIFFS)
    shown = page.split('<pre class="answer">')[2].split("</pre>")[0]
    assert shown == "Done.\n\n```python\nprint('&lt;b&gt;')\n\tx = 1\n```\\x1b[31m\\u200b"


def test_the_page_is_balanced_and_needs_no_network():
    page = _page()
    checker = _Checker()
    checker.feed(page)
    assert checker.stack == [] and checker.external == []
    assert "url(" not in page and "@import" not in page and "<script" not in page


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Recorder.seen.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_CONNECT = do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.slow
def test_report_html_renders_in_headless_chromium_without_the_network(tmp_path):
    browser = find_chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    page = tmp_path / "report.html"
    page.write_text(_page(), encoding="utf-8")
    _Recorder.seen = []
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    via_proxy = (
        f"--proxy-server=http://127.0.0.1:{proxy.server_port}",
        "--proxy-bypass-list=<-loopback>",
    )
    try:
        with Browser(browser, tmp_path / "profile", via_proxy) as chromium:
            looks = {width: chromium.look(page.as_uri(), width) for width in (1280, 390)}
    finally:
        proxy.shutdown()
        proxy.server_close()
    for width, look in looks.items():
        assert look.cut == [], f"at {width} px: " + "\n".join(look.cut)
        assert look.png[:8] == b"\x89PNG\r\n\x1a\n" and len(look.png) > 10_000
        (tmp_path / f"report-{width}.png").write_bytes(look.png)
    print(f"screenshots: {tmp_path}")
    page_calls = [u for u in _Recorder.seen if not any(host in u for host in BROWSER_OWN)]
    assert page_calls == [], f"the page reached for the network: {page_calls}"
