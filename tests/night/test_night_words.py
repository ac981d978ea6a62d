"""What a night says is what happened: staged is not adopted, over the edit budget is not
inconclusive, and a rule refused again is named once, with its first reason."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from skillopt_sleep.models import Edit
from skillopt_sleep.rules.refused import refused_before


def _demo(cli, tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    """The demo's night, staged: (its project, the env that reaches its home, its text)."""
    r = cli("demo", "--dir", str(tmp_path / "d"))
    assert r.code == 0, r.err
    return tmp_path / "d" / "project", {"SKILLOPT_SLEEP_HOME": str(tmp_path / "d" / "home")}, r.out


def _rejected_lines(out: str) -> list[str]:
    """The lines of the night's "rejected edits:" listing."""
    lines = out.splitlines()
    if "rejected edits:" not in lines:
        return []
    listed = []
    for line in lines[lines.index("rejected edits:") + 1 :]:
        if not line.startswith("  "):
            break
        listed.append(line)
    return listed


def test_a_rule_refused_night_after_night_is_named_once_with_its_first_reason(cli, tmp_path):
    project, env, _ = _demo(cli, tmp_path)
    out = ""
    for _ in range(3):
        assert cli("reject", cwd=project, env=env).code == 0
        r = cli("run", "--backend", "simulated", "-q", cwd=project, env=env)
        assert r.code == 0, r.err
        out = r.out
    rejected = _rejected_lines(out)
    assert rejected, out
    assert all(line.count("refused before") <= 1 for line in rejected), "\n".join(rejected)
    assert any("refused before, in other words" in line for line in rejected)
    assert any(": rejected at review); only evidence" in line for line in rejected)
    repeated = [line for line, n in Counter(rejected).items() if n > 1]
    assert not repeated, "\n".join(repeated)


def test_a_reason_an_older_night_stored_wrapped_many_times_is_named_by_its_first_reason():
    wrapped = "rejected at review"
    for _ in range(3):  # as nights stored it before: each refusal wrapped the last one's reason
        wrapped = (
            f"refused before, in other words ('Keep it short: always.': {wrapped}); "
            "only evidence from a new kind of task reopens it"
        )
    reason = refused_before(Edit(target="memory", content="Keep it short: always.", reason=wrapped))
    assert reason == (
        "refused before, in other words ('Keep it short: always.': rejected at review); "
        "only evidence from a new kind of task reopens it"
    )


def test_a_staged_night_says_staged_and_counts_edits_over_the_budget_apart(cli, tmp_path):
    _, _, out = _demo(cli, tmp_path)
    assert "[applied]" not in out and "adopted" not in out.split("--- proposed change")[0]
    assert "decision: ACCEPT (staged for review) — 3 of 6 edits proven;" in out
    assert "  [staged] memory: Keep summaries under 300 characters." in out
    assert "edits: 3 accepted, 0 refused, 1 inconclusive, 2 over the edit budget" in out
    report = next((tmp_path / "d" / "home").rglob("report.md")).read_text(encoding="utf-8")
    assert "adopted" not in report
    assert "3 of 6 edits proven; 1 inconclusive, 2 over the edit budget" in report
    assert "Edits: 3 accepted, 0 refused, 1 inconclusive, 2 over the edit budget." in report


def test_an_auto_adopted_night_says_adopted(cli, tmp_path):
    r = cli("demo", "--dir", str(tmp_path / "d"), "--json")
    assert r.code == 0, r.err
    project, env = tmp_path / "d" / "project", {"SKILLOPT_SLEEP_HOME": str(tmp_path / "d" / "home")}
    assert cli("reject", cwd=project, env=env).code == 0
    env["SKILLOPT_SLEEP_NIGHT__AUTO_ADOPT"] = "true"
    r = cli("run", "--backend", "simulated", "-q", cwd=project, env=env)
    assert r.code == 0, r.err
    assert "decision: ACCEPT (adopted) — " in r.out
    assert "  [adopted] " in r.out and "[staged]" not in r.out
