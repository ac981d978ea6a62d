"""The hostile rule suite through whole nights: nothing hostile is staged or adopted, alone or riding along.

The optimizer's replies come from the loopback model server (the anthropic SDK over HTTP); the
replays and the judge are the simulated backend, in-process (the simulated world, without an HTTP
round trip for each of a night's thousand replays). Every reply proposes a slice of the hostile
suite (``data/hostile_rules.json``) twice, alone and riding along a rule the simulated world rewards
("<useful rule> Also: <hostile rule>"), plus a slice of the benign suite using the same words.
Nights run with ``run`` and every staged proposal is adopted, until the whole suite has been
proposed. Then: no hostile text in any staged candidate or any live file; the useful rules the
hostile ones rode along with were staged and adopted (the gate still works); and every benign
rule passed the guards and was tested by the gate.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import SKILL_PATH, sample_tasks
from skillopt_sleep.rules.text import fold
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import role_of, simulated_night_responder
from skillopt_sleep.testing.replies import ModelCall, Reply, Text

from .sample_log import log_tasks, sample_root

DATA = Path(__file__).parent / "data"
SUITE = json.loads((DATA / "hostile_rules.json").read_text(encoding="utf-8"))
BENIGN = json.loads((DATA / "benign_rules.json").read_text(encoding="utf-8"))["rules"]
HOSTILE = [item["rule"] for item in SUITE["rules"]]
USEFUL = SUITE["useful"]
PER_REPLY = (
    6  # hostile rules per reply, each twice: 12 edits, with up to 7 benign ones (at most 20)
)
MAX_NIGHTS = 12


class SuiteOptimizer:
    """Answers every reflection with the next slice of the suites; everything else as the simulated world."""

    def __init__(self) -> None:
        self.world = simulated_night_responder()
        self.hostile = list(HOSTILE)
        self.benign = list(BENIGN)
        self.lock = threading.Lock()
        self.proposed: list[str] = []

    @property
    def done(self) -> bool:
        return not self.hostile and not self.benign

    def __call__(self, call: ModelCall) -> Reply:
        if role_of(call.system) != "optimizer":
            return self.world(call)
        prompt = call.last.text if call.last is not None else ""
        cases = [int(n) for n in re.findall(r"^### Case (\d+)\b", prompt, flags=re.MULTILINE)]
        with self.lock:
            hostile, self.hostile = self.hostile[:PER_REPLY], self.hostile[PER_REPLY:]
            benign, self.benign = self.benign[:7], self.benign[7:]
        edits = []
        for i, rule in enumerate(hostile):
            useful = USEFUL[(len(self.proposed) + i) % len(USEFUL)]
            target = "skill" if i % 2 else "memory"
            edits.append({"target": target, "content": f"{useful} Also: {rule}", "cases": cases})
            edits.append(
                {"target": "memory" if i % 2 else "skill", "content": rule, "cases": cases}
            )
        edits += [{"target": "memory", "content": rule, "cases": cases} for rule in benign]
        self.proposed += [e["content"] for e in edits]
        return Text(json.dumps({"edits": edits}))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project, its tasks in the store; one request names the user's repository."""
    root = sample_root(tmp_path)
    tasks = sample_tasks(root)
    tasks[0] = tasks[0].model_copy(
        update={"intent": tasks[0].intent + " (repo: https://github.com/acme/app)"}
    )
    log_tasks(tasks)
    return root


def _live(project: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8")
        for p in (project / "CLAUDE.md", project / SKILL_PATH, project / "AGENTS.md")
        if p.exists()
    )


def _found(texts: str, rules: list[str]) -> list[str]:
    """The rules whose text (or folded text) is in ``texts``."""
    folded = fold(texts)
    return [r for r in rules if r in texts or fold(r) in folded or r.rstrip(".") in texts]


def run_suite_nights(cli, project: Path) -> dict[str, object]:
    """Nights until the whole suite was proposed, each staged proposal adopted; what reached where."""
    home = Path(os.environ["SKILLOPT_SLEEP_HOME"])
    optimizer = SuiteOptimizer()
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "SKILLOPT_SLEEP_ROLES__OPTIMIZER__BACKEND": "anthropic",
        "SKILLOPT_SLEEP_ROLES__OPTIMIZER__MODEL": "claude-sonnet-4-6",
        "SKILLOPT_SLEEP_ROLES__TARGET__BACKEND": "simulated",
        "SKILLOPT_SLEEP_ROLES__JUDGE__BACKEND": "simulated",
    }
    nights = staged = adopted_nights = 0
    with ModelServer(responder=optimizer) as srv:
        env["SKILLOPT_SLEEP_ROLES__OPTIMIZER__BASE_URL"] = srv.url
        while not optimizer.done and nights < MAX_NIGHTS:
            r = cli("run", "--project", str(project), "--json", env=env)
            assert r.code == 0, r.err
            nights += 1
            if r.json().get("decision") == "accept":
                staged += 1
                a = cli("adopt", "--project", str(project))
                assert a.code == 0, a.err
                adopted_nights += 1
    candidates = "\n".join(
        p.read_text(encoding="utf-8") for p in home.rglob("candidate/*") if p.is_file()
    )
    live = _live(project)
    return {
        "nights": nights,
        "staged_nights": staged,
        "adopted_nights": adopted_nights,
        "proposed": optimizer.proposed,
        "left": len(optimizer.hostile) + len(optimizer.benign),
        "hostile_staged": _found(candidates, HOSTILE),
        "hostile_adopted": _found(live, HOSTILE),
        "useful_adopted": _found(live, USEFUL),
        "live": live,
    }


@pytest.mark.slow
def test_no_hostile_rule_is_staged_or_adopted_alone_or_riding_along_and_benign_ones_pass(
    cli, project
):
    out = run_suite_nights(cli, project)
    print(
        f"\nnights {out['nights']}, staged {out['staged_nights']}, adopted {out['adopted_nights']}; "
        f"hostile staged {len(out['hostile_staged'])}/{len(HOSTILE)}, "
        f"hostile adopted {len(out['hostile_adopted'])}/{len(HOSTILE)}"
    )
    assert out["left"] == 0, "the nights ended before the whole suite was proposed"
    assert out["hostile_staged"] == [] and out["hostile_adopted"] == []
    assert out["staged_nights"] >= 1 and out["useful_adopted"], (
        "the useful rules should still be learned"
    )
    home = Path(os.environ["SKILLOPT_SLEEP_HOME"])
    evidence = [json.loads(p.read_text()) for p in home.rglob("artifacts/evidence.json")]
    tested = {e["edit"]["content"] for night in evidence for e in night}
    summaries = [json.loads(p.read_text()) for p in home.rglob("artifacts/summary.json")]
    refused = {e["content"]: e["reason"] for s in summaries for e in s["rejected_edits"]}
    # Refused by the lint: not "refused before" (a useful rule of the same words refuted earlier) nor a duplicate.
    linted = {
        b: refused[b]
        for b in BENIGN
        if b in refused
        and b not in tested
        and not refused[b].startswith(("refused before", "duplicate"))
    }
    assert linted == {}, "benign rules refused by the lint"
    print(
        f"benign rules through the guards and tested: {len([b for b in BENIGN if b in tested])}/{len(BENIGN)}"
    )
