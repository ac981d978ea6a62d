"""Agent rollouts in a night: which tasks, their cost under the agent role, their own cache key,
the fallback to text with a note; the agent stands in by SimAgentRunner (no binary needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentLimits, AgentSetup
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.agent_replay.workspace import copy_project, place_files
from skillopt_sleep.night.root import run_night
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays
from skillopt_sleep.rules.skill_places import skill_folders
from skillopt_sleep.rules.workspace import load_workspace
from skillopt_sleep.settings import FilesSettings, NightSettings, Settings
from skillopt_sleep.testing.acting_world import (
    RULES,
    TEST_RUNNER,
    VENDOR_DIR,
    ActingWorld,
    write_project,
)
from skillopt_sleep.testing.sim_agent import SimAgentRunner

SETTINGS = Settings(
    night=NightSettings(concurrency=4, efficacy_rollouts=24, efficacy_looks=1, harm_looks=1)
)


def _project(root: Path) -> Path:
    return write_project(root)


def _night(tmp_path: Path, mode: str, prep=None, seed: int = 1):
    world = ActingWorld(RULES, seed=seed)
    runner = SimAgentRunner(world)

    def sim(agent):
        binary = "claude" if agent == "claude-code" else "codex"
        return AgentSetup(agent, binary, {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    project = _project(tmp_path / "project")
    agents = AgentReplays(mode, prep or sim)  # type: ignore[arg-type]
    result = run_night(
        world.tasks(str(project), n=4),
        project,
        target=world,
        settings=SETTINGS,
        seed=seed,
        agents=agents,
    )
    return result.summary, runner


def test_agent_rollouts_learn_both_action_rules_and_are_counted_under_the_agent_role(tmp_path):
    summary, runner = _night(tmp_path, "auto")
    accepted = {e.edit.content for e in summary.evidence if e.verdict == "accepted"}
    assert {TEST_RUNNER.rule, VENDOR_DIR.rule} <= accepted
    assert summary.usage_by_role["agent"].calls == runner.runs > 0
    assert summary.usage_by_role["agent"].tokens > 0
    assert '"agent"' in summary.to_json()


def test_a_text_night_cannot_see_a_directory_rule_it_only_errors_on(tmp_path):
    summary, runner = _night(tmp_path, "text")
    accepted = {e.edit.content for e in summary.evidence if e.verdict == "accepted"}
    assert runner.runs == 0 and "agent" not in summary.usage_by_role
    assert VENDOR_DIR.rule not in accepted
    assert summary.errored_rollouts > 0  # path checks on a text reply: no evidence, never a 0


def test_no_sandbox_means_text_replays_and_one_note_in_the_report(tmp_path):
    reason = "agent replay refused: bubblewrap (bwrap) is not installed: install bubblewrap"
    summary, runner = _night(tmp_path, "auto", prep=lambda agent: reason)
    assert runner.runs == 0
    assert [s for s in summary.skipped if s.startswith("agent replay refused")] == [
        f"{reason}; claude-code tasks were replayed as text",
        f"{reason}; codex tasks were replayed as text",
    ]


def test_the_copy_leaves_out_git_ignored_and_dependency_files_and_gets_the_candidates(tmp_path):
    project = _project(tmp_path / "p")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "i.js").write_text("x")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hooks": {"Stop": []}, "model": "m"}')
    copy = tmp_path / "copy"
    copy_project(project, copy)
    place_files(
        copy,
        {
            "CLAUDE.md": "rules",
            "AGENTS.md": "rules",
            "SKILL.md": "---\nname: tidy\ndescription: d\n---\nbody",
        },
    )
    names = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()}
    assert not any(n.startswith((".git/", "node_modules/")) for n in names)
    assert {"src/app.py", "vendor/lib.py", ".claude/skills/tidy/SKILL.md"} <= names
    assert ".agents/skills/tidy/SKILL.md" not in names  # Claude Code loads it once, from its own
    assert (copy / "CLAUDE.md").read_text() == "rules"
    assert (copy / ".claude" / "settings.json").read_text() == '{"model": "m"}'
    assert (project / "CLAUDE.md").read_text() == "# Notes\n"  # the live files stay


OLD_SKILL = "---\nname: project-conventions\ndescription: d\n---\nUse pytest.\n"
NEW_SKILL = "---\nname: project-conventions\ndescription: d\n---\nUse pytest -q.\n"


def _loaded(copy: Path, agent: str) -> list[str]:
    """The texts of the skill ``agent`` finds in ``copy``'s skill folders, one per file."""
    return [
        path.read_text()
        for folder in skill_folders(agent)
        for path in sorted((copy / folder).glob("*/SKILL.md"))
    ]


@pytest.mark.parametrize("live", [None, ".claude/skills"], ids=["new skill", "in .claude/skills"])
def test_each_replayed_agent_loads_the_candidate_skill_once_where_the_night_lays_it_out(
    tmp_path, live
):
    # a Copilot + Qwen Code + Pi project: a new skill goes into .agents/skills; one in
    # .claude/skills (Copilot's) gets copies in .qwen/skills and .pi/skills
    project = _project(tmp_path / "p")
    if live is not None:
        (project / live / "project-conventions").mkdir(parents=True)
        (project / live / "project-conventions" / "SKILL.md").write_text(OLD_SKILL)
    agents = ["copilot", "qwen", "pi"]
    workspace = load_workspace(project, FilesSettings(agents=agents), agents)
    expected = (
        [".agents/skills/project-conventions/SKILL.md"]
        if live is None
        else [f"{f}/project-conventions/SKILL.md" for f in (live, ".pi/skills", ".qwen/skills")]
    )
    assert sorted(workspace.skill_at()) == sorted(expected)
    for agent in agents:
        copy = tmp_path / f"copy-{agent}"
        copy_project(project, copy)
        place_files(copy, {"SKILL.md": NEW_SKILL}, agent, workspace.skill_at())
        assert _loaded(copy, agent) == [NEW_SKILL], agent  # once, and not the old text


def test_an_agent_the_places_miss_gets_the_skill_once_in_its_own_folder(tmp_path):
    # no places known (a training run), and a night that knew only Claude Code replaying Codex
    project = _project(tmp_path / "p")
    for agent, places in [
        ("copilot", ()),
        ("codex", (".claude/skills/project-conventions/SKILL.md",)),
    ]:
        copy = tmp_path / f"copy-{agent}"
        copy_project(project, copy)
        place_files(copy, {"SKILL.md": NEW_SKILL}, agent, places)
        assert _loaded(copy, agent) == [NEW_SKILL], agent
        assert all((copy / place).read_text() == NEW_SKILL for place in places)


def test_agent_rollouts_are_cached_apart_from_text_rollouts(tmp_path):
    import asyncio
    import random
    from datetime import datetime, timezone

    from skillopt_sleep.backends.budget import Budget
    from skillopt_sleep.backends.retry import RetryPolicy
    from skillopt_sleep.clock import FixedClock
    from skillopt_sleep.rollouts.replay import Calls, Replayer
    from skillopt_sleep.settings import BudgetSettings
    from skillopt_sleep.store import Store

    world = ActingWorld(RULES)
    project = _project(tmp_path / "project")
    task = world.tasks(str(project), n=1)[0]
    runner = SimAgentRunner(world)
    store = Store.open(tmp_path / "db.sqlite")
    clock = FixedClock(datetime(2026, 11, 21, tzinfo=timezone.utc))

    def replayer(agents):
        calls = Calls(Budget(BudgetSettings()), RetryPolicy(max_retries=0), random.Random(0))
        return Replayer(
            world,
            calls,
            k=2,
            concurrency=2,
            rubric=None,
            store=store,
            clock=clock,  # type: ignore[arg-type]
            agents=agents,
        )

    agents = AgentReplays(
        "auto",
        lambda agent: AgentSetup(
            agent, "claude", {}, Sandbox("bwrap"), AgentLimits(), None, runner
        ),
    )
    files = {"SKILL.md": "", "CLAUDE.md": "x"}
    asyncio.run(replayer(agents).replay([task], files))
    assert runner.runs == 2
    again = replayer(agents)
    asyncio.run(again.replay([task], files))
    assert runner.runs == 2 and again.stats.cached == 2  # tomorrow does not pay again
    text = replayer(AgentReplays("text", lambda agent: "unused"))
    asyncio.run(text.replay([task], files))
    assert text.stats.cached == 0 and text.stats.calls == 2  # a text replay is not an agent rollout


def test_the_estimate_finds_the_agent_rollouts_a_night_cached(tmp_path):
    from datetime import datetime, timezone

    from skillopt_sleep.clock import FixedClock
    from skillopt_sleep.night.project import Backends, estimate_project_night, run_project_night
    from skillopt_sleep.paths import resolve_paths
    from skillopt_sleep.store import Store

    now = datetime(2026, 11, 21, 3, tzinfo=timezone.utc)
    world = ActingWorld(RULES, seed=4)
    runner = SimAgentRunner(world)
    project = _project(tmp_path / "project")
    paths = resolve_paths(str(tmp_path / "home")).ensure()
    store = Store.open(paths.db)
    store.upsert_tasks(world.tasks(str(project), n=4), now)
    backends = Backends(world, world, world)
    before = estimate_project_night(
        project=project, settings=SETTINGS, store=store, backends=backends
    )
    run_project_night(
        project=project,
        settings=SETTINGS,
        store=store,
        paths=paths,
        backends=backends,
        clock=FixedClock(now),
        dry_run=True,
        agents=AgentReplays(
            "auto",
            lambda agent: AgentSetup(
                agent,
                "claude" if agent == "claude-code" else "codex",
                {},
                Sandbox("bwrap"),
                AgentLimits(),
                None,
                runner,
            ),
        ),
    )
    after = estimate_project_night(
        project=project, settings=SETTINGS, store=store, backends=backends
    )
    assert before.cached == 0 and after.cached > 0
    assert after.cached % SETTINGS.night.k == 0  # the train replay, all K rollouts of each task
    text = SETTINGS.model_copy(
        update={"night": SETTINGS.night.model_copy(update={"replay": "text"})}
    )
    as_text = estimate_project_night(project=project, settings=text, store=store, backends=backends)
    assert as_text.cached == 0  # a text night would not find the agent's rollouts
