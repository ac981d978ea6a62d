"""The session-start nudge in the real `claude -p` with `--plugin-dir`, against a loopback
Anthropic Messages server: shown to the user when a proposal waits, absent otherwise, and never
given to the model."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.proposal_models import Edit, NightSummary
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelCall, ModelServer, Text
from skillopt_sleep.testing.agents import claude_env, claude_transcripts, run_agent

pytestmark = pytest.mark.realbin

LINE = "skillopt-sleep: 2 learned rules wait for review: /skillopt-sleep review"


@pytest.fixture
def session(kit, tmp_path, clean_bin):
    """(run, project, sleep home): ``run()`` starts one `claude -p` session in the project."""
    kit.link(clean_bin, "claude")
    home, project, sleep_home = tmp_path / "home", tmp_path / "project", tmp_path / "sleep"
    project.mkdir()
    base = kit.base_env(home, clean_bin, SKILLOPT_SLEEP_HOME=str(sleep_home))
    assert shutil.which("skillopt-sleep", path=base["PATH"]) is None  # only the plugin's launcher

    def run(prompt: str = "hi") -> tuple[list[dict], list[dict], str, list[ModelCall]]:
        """(stream-json records, transcript records, every model request body as text, the
        model calls)."""
        with ModelServer([Text("ok")]) as srv:
            argv = [
                str(clean_bin / "claude"),
                "-p",
                prompt,
                "--plugin-dir",
                str(kit.claude_plugin),
                "--output-format",
                "stream-json",
                "--verbose",
            ]
            records = run_agent(argv, claude_env(home, srv.url, base=base), project, 120).jsonl()
            bodies = json.dumps([r.body for r in srv.requests])
            calls = srv.model_calls("anthropic")
        [transcript] = claude_transcripts(home)
        lines = transcript.read_text("utf-8").splitlines()
        transcript.unlink()  # the next session's is then the only one
        return records, [json.loads(line) for line in lines], bodies, calls

    return run, project.resolve(), sleep_home


def _stage(sleep_home: Path, project: Path) -> None:
    store = Store.open(resolve_paths(str(sleep_home)).ensure().db)
    store.save_night(
        NightSummary(
            night_id="20261126-031700",
            project=str(project),
            started_at=datetime.now(timezone.utc),
            decision="accept",
            proposal_dir=str(sleep_home / "nights" / "20261126-031700"),
            edits=[
                Edit(target="memory", op="add", content="Use uv.", status="applied"),
                Edit(target="memory", op="add", content="Run pytest -q.", status="applied"),
            ],
        ),
        "staged",
    )
    store.close()


def _start_hook_stdout(records: list[dict]) -> str:
    [response] = [
        r
        for r in records
        if r.get("subtype") == "hook_response" and r.get("hook_event") == "SessionStart"
    ]
    assert (response["exit_code"], response["outcome"]) == (0, "success")
    return str(response["stdout"])


def _shown(transcript: list[dict]) -> list[str]:
    """The hook messages Claude Code shows the user, as its transcript records them."""
    return [
        r["attachment"]["content"]
        for r in transcript
        if r.get("type") == "attachment"
        and r["attachment"].get("type") == "hook_system_message"
        and r["attachment"].get("hookEvent") == "SessionStart"
    ]


def test_a_session_started_while_a_proposal_waits_shows_the_notice_once_a_day(session):
    run, project, sleep_home = session
    _stage(sleep_home, project)
    records, transcript, bodies, _ = run()
    assert json.loads(_start_hook_stdout(records)) == {"systemMessage": LINE}
    assert _shown(transcript) == [LINE]
    assert "learned rule" not in bodies  # for the user: the model is not asked about it
    assert records[-1]["result"] == "ok"

    records, transcript, _, _ = run()  # the same day: said once already
    assert _start_hook_stdout(records) == ""
    assert _shown(transcript) == []


def test_a_session_started_with_nothing_waiting_shows_nothing(session):
    """A bare `/skillopt-sleep` session with an empty store: no notice, and the bare command
    reaches the model as the skill's instructions for `status`."""
    run, _, _ = session
    records, transcript, _, [call] = run("/skillopt-sleep")
    assert _start_hook_stdout(records) == ""
    assert _shown(transcript) == []
    assert records[-1]["result"] == "ok"
    text = "\n".join(call.user_texts)
    assert "<command-name>/skillopt-sleep:skillopt-sleep</command-name>" in text
    assert "With no arguments it is `skillopt-sleep status`." in text
