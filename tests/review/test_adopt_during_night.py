"""What the user writes while a night runs, an adoption runs or a rollback runs is never lost.

Real nights of the sample project (the simulated backend), with the user's save landing at the
moment that used to lose it: a line added to CLAUDE.md mid-night, an earlier night adopted while
a later one runs, a save between rollback's check and its write.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import ProposalError
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.night.project import Backends, run_project_night
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.review.adopt import adopt, rollback
from skillopt_sleep.review.fileops import FileOps, aside_path
from skillopt_sleep.rules.managed_block import BEGIN, END, block_lines
from skillopt_sleep.settings import Settings
from skillopt_sleep.store import Store

USER_LINE = "- Deploy with `make ship`, never by hand.\n"


class Meanwhile:
    """The simulated target, which runs ``during`` once, at the night's first replay."""

    name = "simulated"

    def __init__(self, during: Callable[[], None] | None) -> None:
        self.inner, self.during = SimulatedBackend(), during
        self.model = self.inner.model

    async def complete(self, request: Request) -> Completion:
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return await self.inner.complete(request)

    async def check(self) -> Health:
        return await self.inner.check()


@pytest.fixture
def world(tmp_path: Path):
    project = tmp_path / "project"
    write_sample_project(project)
    paths = resolve_paths(str(tmp_path / "home")).ensure()
    store = Store.open(paths.db)
    clock = FixedClock(datetime(2026, 11, 20, 3, 0, tzinfo=timezone.utc))
    return project, paths, store, clock


def night(world, during: Callable[[], None] | None = None, *, auto_adopt: bool = False) -> str:
    """Run one night of the sample project; the id of the night it staged."""
    project, paths, store, clock = world
    settings = Settings()
    settings.night.auto_adopt = auto_adopt
    backends = Backends(Meanwhile(during), SimulatedBackend(), SimulatedBackend())
    result = run_project_night(
        project=project,
        settings=settings,
        store=store,
        paths=paths,
        backends=backends,
        clock=clock,
        tasks=sample_tasks(project),
    )
    clock.advance(days=1)
    assert result.summary.decision == "accept", result.summary.reason
    assert any(e.target == "memory" for e in result.summary.edits)
    return result.summary.night_id


def add_line(path: Path, line: str = USER_LINE, *, at_top: bool = False) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(line + text if at_top else text + line, encoding="utf-8")


def test_a_line_added_during_the_night_is_kept_at_adoption_and_said_in_one_line(cli, world):
    project, _, store, _ = world
    claude = project / "CLAUDE.md"
    night_id = night(world, lambda: add_line(claude, at_top=True))
    assert claude.read_text().startswith(USER_LINE)  # staging wrote nothing live

    env = {"SKILLOPT_SLEEP_HOME": str(project.parent / "home")}
    r = cli("review", cwd=project, env=env)
    assert r.code == 0, r.err
    assert (
        f"note: {claude} changed outside the skillopt-sleep block since the night read it: "
        "adopt keeps your change and adds the rules to it"
    ) in r.out

    r = cli("adopt", cwd=project, env=env)
    assert r.code == 0, r.err
    notes = [ln for ln in r.out.splitlines() if ln.startswith("note:")]
    assert notes == [
        (
            f"note: {claude} changed outside the skillopt-sleep block since night {night_id} read "
            "it: your change is kept and the rules were added to it"
        )
    ]
    text = claude.read_text()
    assert text.startswith(USER_LINE) and BEGIN in text and END in text
    staged_rules = [e.content for e in store.night(night_id).summary.edits if e.target == "memory"]
    assert staged_rules and all(rule in block_lines(text) for rule in staged_rules)

    r = cli(
        "rollback", cwd=project, env=env
    )  # the rollback gives back the file as it was adopted onto
    assert r.code == 0, r.err
    assert claude.read_text().startswith(USER_LINE) and BEGIN not in claude.read_text()


def test_auto_adopt_keeps_a_line_added_during_the_night_and_its_notice_says_so(world):
    project, _, store, _ = world
    claude = project / "CLAUDE.md"
    night_id = night(world, lambda: add_line(claude), auto_adopt=True)
    assert store.night(night_id).state == "adopted"
    assert USER_LINE in claude.read_text() and BEGIN in claude.read_text()
    notice = next(n.message for n in store.notices() if "auto-adopted" in n.message)
    assert "your change is kept and the rules were added to it" in notice


def test_a_change_inside_the_block_during_the_night_is_refused_in_one_line(cli, world):
    project, paths, store, clock = world
    claude = project / "CLAUDE.md"
    first = night(world)
    assert adopt(store, paths, store.night(first), clock).state == "adopted"
    second = night(
        world,
        lambda: claude.write_text(
            claude.read_text().replace(END, "- My own rule in the block.\n" + END), encoding="utf-8"
        ),
    )
    mine = claude.read_bytes()
    env = {"SKILLOPT_SLEEP_HOME": str(project.parent / "home")}
    r = cli("adopt", second, cwd=project, env=env)
    assert r.code == 8
    assert r.err.splitlines() == [
        (
            f"skillopt-sleep: error: {claude} changed inside its skillopt-sleep block since night {second} read "
            "it; nothing was written (run the night again to stage a fresh proposal, or `skillopt-sleep reject` "
            "this one)"
        )
    ]
    assert claude.read_bytes() == mine and store.night(second).state == "staged"


def test_adopting_an_earlier_night_while_a_later_runs_keeps_the_earlier_rules(cli, world):
    project, _, store, _ = world
    claude = project / "CLAUDE.md"
    earlier = night(world)
    env = {"SKILLOPT_SLEEP_HOME": str(project.parent / "home")}
    adopted: list[int] = []

    def adopt_earlier() -> None:  # the user adopts last night's proposal while tonight's runs
        r = cli("adopt", earlier, cwd=project, env=env)
        adopted.append(r.code)

    later = night(world, adopt_earlier)
    assert adopted == [0] and store.night(earlier).state == "adopted"
    assert block_lines(claude.read_text())
    after_earlier = {p: p.read_bytes() for p in project.rglob("*.md")}

    r = cli("adopt", later, cwd=project, env=env)
    assert r.code == 8 and len(r.err.splitlines()) == 1
    assert (
        f"changed inside its skillopt-sleep block since night {later} read it; nothing was written"
        in r.err
    )
    # the earlier night's rules are all still there, byte for byte
    assert {p: p.read_bytes() for p in project.rglob("*.md")} == after_earlier
    assert store.night(later).state == "staged" and store.night(earlier).state == "adopted"
    r = cli("review", later, cwd=project, env=env)
    assert (
        f"note: {claude} changed inside its skillopt-sleep block since the night read it: adopt will refuse"
        in r.out
    )


class SaveAt(FileOps):
    """Lands the user's save of ``path`` just before the ``op`` call on it (once)."""

    def __init__(self, path: Path, op: str, data: bytes) -> None:
        self.path, self.op, self.data, self.done = path, op, data, False

    def _maybe(self, op: str, target: Path) -> None:
        if not self.done and op == self.op and target == self.path:
            self.done = True
            self.path.write_bytes(self.data)

    def set_aside(self, path: Path) -> bool:
        self._maybe("set_aside", path)
        return super().set_aside(path)

    def place(self, src: Path, path: Path) -> bool:
        self._maybe("place", path)
        return super().place(src, path)


@pytest.mark.parametrize("op", ["set_aside", "place"])
def test_a_save_during_rollback_is_kept_and_the_rollback_says_so(cli, world, op):
    project, paths, store, clock = world
    claude = project / "CLAUDE.md"
    night_id = night(world)
    adopt(store, paths, store.night(night_id), clock)
    skill_adopted = {p: p.read_bytes() for p in project.rglob("SKILL.md")}
    save = claude.read_bytes() + USER_LINE.encode()
    with pytest.raises(ProposalError) as refused:
        rollback(store, paths, store.night(night_id), clock, ops=SaveAt(claude, op, save))
    assert refused.value.one_line().startswith(
        f"{claude} was saved meanwhile while night {night_id} was being rolled back: your save is kept "
        "and nothing was restored"
    )
    assert "\n" not in refused.value.one_line()
    assert claude.read_bytes() == save  # the user's save, byte for byte
    assert {p: p.read_bytes() for p in project.rglob("SKILL.md")} == skill_adopted
    assert not aside_path(claude).exists() and store.night(night_id).state == "adopted"
    env = {"SKILLOPT_SLEEP_HOME": str(project.parent / "home")}
    r = cli("rollback", cwd=project, env=env)  # the file changed since adoption: the usual refusal
    assert r.code == 8 and "changed since night" in r.err and claude.read_bytes() == save


@pytest.mark.parametrize("op", ["set_aside", "place"])
def test_a_save_during_adoption_is_kept_and_nothing_is_adopted(world, op):
    project, paths, store, clock = world
    claude = project / "CLAUDE.md"
    night_id = night(world)
    before = {p: p.read_bytes() for p in project.rglob("*.md")}
    save = claude.read_bytes() + USER_LINE.encode()
    with pytest.raises(ProposalError) as refused:
        adopt(store, paths, store.night(night_id), clock, ops=SaveAt(claude, op, save))
    assert refused.value.message == (
        f"{claude} was saved meanwhile; your save is kept and nothing of night "
        f"{night_id} was adopted"
    )
    assert claude.read_bytes() == save
    after = {p: p.read_bytes() for p in project.rglob("*.md")}
    assert after == {**before, claude: save}  # the other files are as before the adoption
    assert store.night(night_id).state == "staged"


HOLDER = """
import sys, time
from skillopt_sleep.lock import project_lock
with project_lock(sys.argv[1], sys.argv[2]):
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
"""


def test_adopt_waits_for_a_night_staging_the_same_project(world, subprocess_env):
    project, paths, store, clock = world
    night_id = night(world)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(paths.lock_file.parent), str(project), "1.5"],
        stdout=subprocess.PIPE,
        text=True,
        env=subprocess_env,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        outcome = adopt(store, paths, store.night(night_id), clock)
        waited = time.monotonic() - started
    finally:
        holder.communicate(timeout=30)  # waits, and closes its pipe
    assert outcome.state == "adopted" and waited >= 1.0
