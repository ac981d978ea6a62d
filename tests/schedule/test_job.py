"""One scheduled run: auth checked before anything is spent, a notice for every failure, a log."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Health
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.cli.context import Ctx
from skillopt_sleep.cli.schedule_run_cmds import job_ctx
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.lock import night_lock
from skillopt_sleep.models import Edit, EditEvidence, NightSummary
from skillopt_sleep.schedule.envfile import merge_env_file
from skillopt_sleep.schedule.job import JobDeps, NightOutcome, check_auth, run_job
from skillopt_sleep.settings import Settings

START = datetime(2026, 5, 2, 3, 17, tzinfo=timezone.utc)


class RejectingBackend(ScriptedBackend):
    """A backend whose key is rejected; counts what it would have spent."""

    name = "anthropic"

    async def check(self) -> Health:
        return Health(False, "the API key was rejected (401)", fix="set a valid ANTHROPIC_API_KEY")


class NightSpy:
    def __init__(self, outcome: NightOutcome) -> None:
        self.outcome = outcome
        self.calls: list[Path] = []

    def __call__(self, project, flags, env):
        self.calls.append(project)
        return self.outcome


def _deps(store, paths, night, factory=None, **kw) -> JobDeps:
    return JobDeps(
        store=store,
        paths=paths,
        clock=FixedClock(START),
        env={},
        settings_for=lambda p: Settings(),
        night=night,
        backend_factory=factory or (lambda role, env: ScriptedBackend()),
        **kw,
    )


def test_rejected_auth_spends_nothing_and_leaves_a_notice(store, paths, project, cli):
    backends: list[RejectingBackend] = []

    def factory(role, env):
        backends.append(RejectingBackend())
        return backends[-1]

    night = NightSpy(NightOutcome("ok"))
    result = run_job([project], _deps(store, paths, night, factory))
    assert night.calls == [] and backends and all(b.history == [] for b in backends)
    assert result.exit_code == 6 and result.record.status == "failed"
    (notice,) = store.notices()
    assert notice.kind == "schedule"
    assert notice.message == (
        f"scheduled night for {project} did not start: target backend anthropic (scripted): the API key "
        "was rejected (401) (set a valid ANTHROPIC_API_KEY) (nothing was spent; fix it and the next "
        "night runs)"
    )
    status = cli("schedule", "status", "--json").json()
    assert status["last_run"]["status"] == "failed"
    assert [n["message"] for n in status["notices"]] == [notice.message]
    text = cli("schedule", "status").out
    assert "1 unseen failure notice(s):" in text and "the API key was rejected (401)" in text
    assert "last run: Sat 2026-05-02" in text and "(scheduled), failed: " in text
    assert "dismiss with `skillopt-sleep schedule status --ack`" in text
    assert "marked as seen" in cli("schedule", "status", "--ack").out
    assert cli("schedule", "status", "--json").json()["notices"] == []
    assert store.notices() == []


def test_a_good_night_is_logged_with_secrets_redacted(store, paths, project):
    evidence = [
        EditEvidence(edit=Edit(target="memory", content=rule), verdict=verdict)
        for rule, verdict in (
            ("Use uv.", "accepted"),
            ("Be terse.", "no_effect"),
            ("Be kind.", "inconclusive"),
        )
    ]
    summary = NightSummary(
        night_id="n-0502",
        project=str(project),
        started_at=START,
        decision="accept",
        evidence=evidence,
        proposal_dir="/p/n-0502",
        calls=40,
        cost_usd=0.0123,
    )
    night = NightSpy(NightOutcome("ok", summary, output="progress... key sk-ant-api03-" + "y" * 30))
    result = run_job([project], _deps(store, paths, night))
    assert result.exit_code == 0 and night.calls == [project]
    record = result.record
    assert record.status == "ok" and record.projects[0].decision == "accept"
    assert record.projects[0].night_id == "n-0502"
    log = Path(record.log_file).read_text()
    assert (
        "night n-0502: accept, edits 1 accepted, 1 refused, 1 inconclusive, staged in /p/n-0502 "
        "(40 calls, $0.0123)"
    ) in log
    assert "sk-ant-api03" not in log and "[REDACTED:anthropic-key]" in log
    assert Path(record.log_file).name == "night-20260502-031700.log"
    assert store.notices() == []


def test_a_failed_night_leaves_a_notice_and_the_next_project_still_runs(
    store, paths, tmp_path, project
):
    other = tmp_path / "other"
    other.mkdir()
    outcomes = iter(
        [
            NightOutcome("failed", message="disk full while writing x", exit_code=5),
            NightOutcome("ok"),
        ]
    )
    ran: list[Path] = []

    def night(p, flags, env):
        ran.append(p)
        return next(outcomes)

    result = run_job([project, other], _deps(store, paths, night))
    assert ran == [project, other]
    assert result.exit_code == 5 and [p.status for p in result.record.projects] == ["failed", "ok"]
    assert [n.message for n in store.notices()] == [
        f"scheduled night for {project} failed: disk full while writing x"
    ]


def test_a_run_while_another_night_holds_the_lock_is_skipped_with_a_notice(store, paths, project):
    night = NightSpy(NightOutcome("ok"))
    with night_lock(paths.lock_file):
        result = run_job([project], _deps(store, paths, night))
    assert night.calls == [] and result.exit_code == 9 and result.record.status == "skipped"
    (notice,) = store.notices()
    assert notice.message.startswith("scheduled night skipped: another night is running (pid ")


def test_a_moved_config_or_a_missing_project_is_a_notice_not_a_silent_default(
    store, paths, tmp_path
):
    night = NightSpy(NightOutcome("ok"))
    run_job([tmp_path / "gone"], _deps(store, paths, night))
    run_job([tmp_path], _deps(store, paths, night, expect_config=tmp_path / "elsewhere.toml"))
    assert night.calls == []
    first, second = (n.message for n in store.notices())
    assert f"the project {tmp_path / 'gone'} does not exist any more" in first
    assert f"the job finds its config at {paths.config_file}, but was scheduled with" in second


def test_an_interrupted_night_is_recorded_without_a_failure_notice(store, paths, project):
    result = run_job(
        [project],
        _deps(store, paths, NightSpy(NightOutcome("interrupted", message="night stopped"))),
    )
    assert result.record.status == "interrupted" and store.notices() == []


def test_each_distinct_backend_is_probed_once():
    settings = Settings.model_validate(
        {"roles": {"judge": {"backend": "scripted", "model": "small"}}}
    )
    made: list[tuple[str | None, str | None]] = []

    def factory(role, env):
        made.append((role.backend, role.model))
        return ScriptedBackend()

    assert check_auth(settings, {}, factory) == []
    assert made == [(None, None), ("scripted", "small")]


def test_an_unknown_backend_is_named_with_its_choices():
    settings = Settings.model_validate({"roles": {"target": {"backend": "antropic"}}})
    from skillopt_sleep.backends.registry import create_backend

    (problem,) = [p for p in check_auth(settings, {}, create_backend) if p.startswith("target")]
    assert "unknown backend 'antropic'" in problem and "did you mean anthropic?" in problem


def test_the_job_reads_keys_from_the_env_file_but_the_live_environment_wins(tmp_path):
    home = tmp_path / "h"
    ctx = Ctx(
        env={"SKILLOPT_SLEEP_HOME": str(home), "OPENAI_API_KEY": "live"},
        cwd=tmp_path,
        stdin=io.StringIO(),
        out=io.StringIO(),
        err=io.StringIO(),
    )
    merge_env_file(ctx.paths.env_file, {"ANTHROPIC_API_KEY": "from-file", "OPENAI_API_KEY": "old"})
    made = job_ctx(ctx, ["CLAUDE_CONFIG_DIR=/c"])
    assert made.env["ANTHROPIC_API_KEY"] == "from-file"
    assert made.env["OPENAI_API_KEY"] == "live"
    assert made.env["CLAUDE_CONFIG_DIR"] == "/c"


def test_run_job_cli_with_a_backend_that_cannot_start(cli, project):
    r = cli("schedule", "run-job", "--project", str(project), "--backend", "antropic")
    assert r.code == 6
    assert r.out.startswith("scheduled run: failed (target backend: unknown backend 'antropic'")
    status = cli("schedule", "status", "--json").json()
    assert status["last_run"]["trigger"] == "scheduled" and len(status["notices"]) == 1


@pytest.mark.parametrize("bad", ["no-equals", "=value"])
def test_a_bad_env_pair_is_a_usage_error(cli, bad, project):
    r = cli("schedule", "run-job", "--project", str(project), "--env", bad)
    assert r.code == 2 and "is not KEY=VALUE" in r.err
