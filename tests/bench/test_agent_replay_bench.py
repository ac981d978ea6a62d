"""bench/agent_replay.py: the stand-in agent's nights against text replay, and the real binaries'
nights (skipped, and said so, where an agent cannot run)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "agent_replay.py"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("agent_replay_bench", BENCH)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_stand_in_nights_show_text_replay_blind_to_a_directory_rule(capsys):
    assert _bench().main(["--nights", "1", "--json"]) == 0  # seeded: this night, every run
    out = json.loads(capsys.readouterr().out)
    agent, text = out["agent"], out["text"]
    assert agent["power_by_rule"]["never edit files under vendor/"] == 1.0
    assert text["power_by_rule"]["never edit files under vendor/"] == 0.0
    assert text["errored_per_night"] > 0 and agent["errored_per_night"] == 0
    assert out["agent_over_text"]["tokens_per_night"] > 1
    assert all(r["agent_rollouts"] > 0 for r in out["nights"]["agent"])


def test_a_real_agent_that_cannot_run_here_is_reported_skipped_never_stood_in(
    capsys, monkeypatch, tmp_path
):
    bench = _bench()
    monkeypatch.setattr(bench, "TOOLS", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert bench.main(["--real", "--agents", "codex"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [
        "codex:",
        "  skipped: codex is not installed, so tasks with action checks are replayed as text",
    ]


def test_an_unknown_rule_is_refused_in_one_line_naming_the_rules(capsys):
    with pytest.raises(SystemExit) as exited:
        _bench().main(["--rules", "vendor,tabs"])
    assert exited.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("error: unknown rule 'tabs': choose among unittest, vendor")
    )


@pytest.mark.realbin
@pytest.mark.slow
def test_a_real_codex_night_learns_the_directory_rule_text_replay_cannot_see(capsys):
    bench = _bench()
    if shutil.which("codex", path=f"{bench.TOOLS}") is None or shutil.which("bwrap") is None:
        pytest.skip("codex (in .tools) and bubblewrap are needed")
    # One night of the directory rule's tasks (and the decoy): the world's draws are seeded, so
    # this night learns the rule every time (seed 3: 8 of 8 rollouts with the rule loaded
    # left vendor/ alone, 2 of 22 without it); the command rule's tasks, which text replay can
    # learn too, would double the rollouts and prove nothing more here. Codex, whose rollout
    # costs a third of Claude Code's CPU: --real runs every agent through the same code, and a
    # real Claude Code night learning the directory rule is tests/agent_replay/test_real_night.py.
    argv = ["--real", "--agents", "codex", "--rules", "vendor", "--seed", "3", "--json"]
    assert bench.main(argv) == 0
    out = json.loads(capsys.readouterr().out)["codex"]
    vendor = "never edit files under vendor/"
    assert out["text"]["power_by_rule"] == {vendor: 0.0}  # a text reply touches no file
    assert out["agent"]["false_accepts"] == 0.0
    assert out["nights"]["agent"][0]["agent_rollouts"] > 0
    assert out["agent"]["power_by_rule"] == {vendor: 1.0}  # what the agent did, seen
