"""The run's extras reach the environment and the optimizer's prompt templates; a rollout's
conversation and extras are kept in rollouts.jsonl and its conversation is shown (redacted) to
the analysts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.optimize.prompts import shipped

HERE = Path(__file__).parent
ANALYSTS = ("reflect_contrast", "reflect_failure", "reflect_success")


@pytest.fixture
def prompts_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "prompts"
    folder.mkdir()
    for name in ANALYSTS:
        (folder / f"{name}.txt").write_text(shipped(name) + "\nThe domain is {extras.domain}.\n")
    return folder


def _train(cli, tmp_path: Path, env: str, extras: str, *more: str):  # type: ignore[no-untyped-def]
    return cli(
        "train", "--env", env, "--mode", "document", "--out", str(tmp_path / "run"),
        "--backend", "simulated", "--epochs", "1", "--steps-per-epoch", "1", "--extras", extras,
        "--json", *more,
    )  # fmt: skip


def _rollouts(run: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((run / "units").glob("*/rollouts.jsonl"))
        for line in path.read_text().splitlines()
    ]


def test_extras_reach_the_environment_and_the_templates_and_the_conversation_is_kept(
    cli, tmp_path: Path, prompts_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    extras = '{"lang": "fr", "domain": "arithmetic"}'
    r = _train(cli, tmp_path, "talking_env:TalkingEnv", extras, "--prompts", str(prompts_dir))
    assert r.code == 0, r.err
    run = tmp_path / "run"
    lines = _rollouts(run)
    assert lines and all(line["extras"] == {"lang": "fr", "turns": 2} for line in lines)
    turns = lines[0]["conversation"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[0]["content"].startswith("(fr) What is")  # configure(extras) set the language
    assert "[REDACTED:openai-key]" in turns[2]["content"] and "sk-proj-" not in json.dumps(lines)
    asked = [
        c for p in sorted(run.glob("units/*/reflections.json")) for c in json.loads(p.read_text())
    ]
    analysts = [c for c in asked if c["tag"] in {"reflect-" + a[8:] for a in ANALYSTS}]
    assert analysts and all("The domain is arithmetic.\n" in c["system"] for c in analysts)
    assert "{extras" not in json.dumps(asked)
    shown = analysts[0]["prompt"]
    assert "## CONVERSATIONS" in shown and "[user] Are you sure? My key is [REDACTED" in shown
    assert shown.index("## CASES") < shown.index("## CONVERSATIONS")
    assert "sk-proj-" not in json.dumps(asked)


def test_an_environment_made_with_its_extras_gets_them_in_its_constructor(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    r = _train(cli, tmp_path, "talking_env:MadeWithExtras", '{"lang": "de"}')
    assert r.code == 0, r.err
    assert _rollouts(tmp_path / "run")[0]["conversation"][0]["content"].startswith("(de!) ")


def test_a_template_naming_an_extra_the_run_lacks_is_one_line_and_no_run(
    cli, tmp_path: Path, prompts_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    r = _train(
        cli, tmp_path, "talking_env:TalkingEnv", '{"lang": "fr"}', "--prompts", str(prompts_dir)
    )
    assert (r.code, r.out) == (4, "")
    assert (
        r.err.startswith("skillopt-sleep: error: the reflect_contrast prompt (")
        and "uses {extras.domain}, which the run's extras do not hold (they hold: lang)" in r.err
    )
    assert '--extras \'{"domain": "..."}\'' in r.err and r.err.count("\n") <= 2
    assert not (tmp_path / "run").exists()


def test_an_environment_refusing_the_extras_is_one_line_naming_them(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    r = _train(cli, tmp_path, "talking_env:TalkingEnv", '{"language": "fr"}')
    assert (r.code, r.out) == (3, "")
    assert r.err.startswith(
        "skillopt-sleep: error: talking.configure(extras) failed: KeyError: 'lang'"
    )
    assert "check --extras ['language']" in r.err and r.err.count("\n") <= 2
    assert not (tmp_path / "run").exists()
