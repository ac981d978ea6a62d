"""adopt and rollback killed at every file operation, or out of disk during the undo.

After the next command the project is exactly as before the adoption or exactly as after it,
byte for byte, modes and symbolic links included, and the night's state says which. A fault-
injecting ``FileOps`` stops the process's work before or after each operation (a ``BaseException``
that nothing catches, as a kill leaves it); a few points are also hit by a real ``kill -9``.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import StoreError
from skillopt_sleep.lock import try_lock
from skillopt_sleep.review.adopt import adopt, rollback
from skillopt_sleep.review.fileops import FileOps
from skillopt_sleep.review.journal import journal_path
from skillopt_sleep.store.files import write_error

from .conftest import Home

NIGHT = "20260301-031700-aaaaaa"
CLAUDE = b"# Notes\r\n\r\n- Use tabs.\r\nno final newline"
AGENTS = b"# Agents\n\n- Be brief.\n"
SKILL = "---\nname: demo\ndescription: d\n---\n"
BLOCK = "\n<!-- skillopt-sleep:begin -->\n- Use uv.\n<!-- skillopt-sleep:end -->\n"
PRIMITIVES = (
    "write_temp",
    "replace",
    "overwrite",
    "unlink",
    "mkdir",
    "rmdir",
    "set_aside",
    "place",
)


def plain(project: Path) -> dict[str, str]:
    """Two regular memory files (one private) and a new skill in directories that do not exist."""
    (project / "CLAUDE.md").write_bytes(CLAUDE)
    (project / "AGENTS.md").write_bytes(AGENTS)
    os.chmod(project / "AGENTS.md", 0o600)
    return {
        "CLAUDE.md": CLAUDE.decode() + BLOCK,
        "AGENTS.md": AGENTS.decode() + BLOCK,
        "SKILL.md": SKILL,
    }


def linked(project: Path) -> dict[str, str]:
    """``CLAUDE.md -> AGENTS.md``, both staged with the one candidate, and a new skill."""
    (project / "AGENTS.md").write_bytes(AGENTS)
    os.symlink("AGENTS.md", project / "CLAUDE.md")
    return {
        "CLAUDE.md": AGENTS.decode() + BLOCK,
        "AGENTS.md": AGENTS.decode() + BLOCK,
        "SKILL.md": SKILL,
    }


def hard_linked(project: Path) -> dict[str, str]:
    """``CLAUDE.md`` and ``AGENTS.md`` two hard links of one file, and a new skill."""
    (project / "AGENTS.md").write_bytes(AGENTS)
    os.link(project / "AGENTS.md", project / "CLAUDE.md")
    return {"AGENTS.md": AGENTS.decode() + BLOCK, "SKILL.md": SKILL}


SETUPS = {"plain": plain, "linked": linked, "hard-linked": hard_linked}


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: links by target, files by bytes and mode, dirs by mode."""
    out: dict[str, tuple] = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(base) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", path.stat().st_mode & 0o7777)
            else:
                info = path.stat()
                out[rel] = ("file", path.read_bytes(), info.st_mode & 0o7777, info.st_nlink)
    return out


class Crash(BaseException):
    """Stands for a kill: nothing in the package catches it, no cleanup runs on its account."""


class CrashAt(FileOps):
    """Counts the file operations; stops the work before or after operation number ``at``."""

    def __init__(
        self, at: int = 0, when: str = "before", hit: Callable[[], None] | None = None
    ) -> None:
        self.at, self.when, self.count = at, when, 0
        self.hit = hit or self._raise

    @staticmethod
    def _raise() -> None:
        raise Crash

    def _op(self, name: str, *args):
        self.count += 1
        if self.count == self.at and self.when == "before":
            self.hit()
        result = getattr(FileOps, name)(self, *args)
        if self.count == self.at and self.when == "after":
            self.hit()
        return result


for _name in PRIMITIVES:
    setattr(CrashAt, _name, lambda self, *args, _n=_name: self._op(_n, *args))


def fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str, setup: str
) -> tuple[Home, Path]:
    """A new home and project, staged with the setup's candidates."""
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / f"home-{tag}"))
    project = tmp_path / f"proj-{tag}"
    project.mkdir()
    home = Home()
    home.stage(project, SETUPS[setup](project))
    return home, project


def clock() -> FixedClock:
    from datetime import datetime, timezone

    return FixedClock(datetime(2026, 3, 1, 7, 0, tzinfo=timezone.utc))


def states(tmp_path, monkeypatch, setup: str) -> tuple[dict, dict, int, int]:
    """(before, after, file operations of adopt, of rollback) from a clean run."""
    home, project = fresh(tmp_path, monkeypatch, f"clean-{setup}", setup)
    before = snapshot(project)
    counting = CrashAt()
    adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=counting)
    after = snapshot(project)
    undo = CrashAt()
    rollback(home.store, home.paths, home.store.night(NIGHT), clock(), ops=undo)
    assert snapshot(project) == before
    return before, after, counting.count, undo.count


def crash_points(n_ops: int) -> list[tuple[int, str]]:
    return [(at, when) for at in range(1, n_ops + 1) for when in ("before", "after")]


def next_command(cli, home: Home, project: Path, before: dict, after: dict) -> tuple[bool, str]:
    """Run `status` (any command repairs); (whether the project is as before, the night's state)."""
    r = cli("status", cwd=project)
    assert r.code == 0, r.err
    now = snapshot(project)
    assert now in (before, after)
    assert not journal_path(home.paths, str(project)).exists()
    return now == before, home.store.night(NIGHT).state


@pytest.mark.slow
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_adopt_killed_at_every_file_operation_ends_before_or_after(
    cli, tmp_path, monkeypatch, setup
):
    before, after, n_ops, _ = states(tmp_path, monkeypatch, setup)
    assert before != after and n_ops >= 10
    if setup == "linked":
        assert after["CLAUDE.md"] == ("link", "AGENTS.md")
    if setup == "hard-linked":
        assert after["CLAUDE.md"] == after["AGENTS.md"] and after["AGENTS.md"][3] == 2
    seen = set()
    for at, when in crash_points(n_ops):
        home, project = fresh(tmp_path, monkeypatch, f"{setup}-{at}-{when}", setup)
        with pytest.raises(Crash):
            adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=CrashAt(at, when))
        as_before, state = next_command(cli, home, project, before, after)
        assert state == ("staged" if as_before else "adopted"), (at, when, state)
        seen.add(as_before)
        if state == "staged":  # the user can adopt again, and roll back, exactly
            assert cli("adopt", cwd=project).code == 0 and snapshot(project) == after
        assert cli("rollback", cwd=project).code == 0 and snapshot(project) == before
    assert seen == {True, False}


@pytest.mark.slow
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_rollback_killed_at_every_file_operation_ends_before_or_after(
    cli, tmp_path, monkeypatch, setup
):
    before, after, _, n_ops = states(tmp_path, monkeypatch, setup)
    assert n_ops >= 3
    for at, when in crash_points(n_ops):
        home, project = fresh(tmp_path, monkeypatch, f"rb-{setup}-{at}-{when}", setup)
        adopt(home.store, home.paths, home.store.night(NIGHT), clock())
        with pytest.raises(Crash):
            rollback(
                home.store, home.paths, home.store.night(NIGHT), clock(), ops=CrashAt(at, when)
            )
        as_before, state = next_command(cli, home, project, before, after)
        assert state == ("rolled_back" if as_before else "adopted"), (at, when, state)


class FullDisk(FileOps):
    """A disk that fills up after the adoption's first live write: every later write fails."""

    def __init__(self, project: Path) -> None:
        self.project, self.live_writes = project, 0

    def _live_write(self, path: Path) -> None:
        if self.project in path.parents:
            self.live_writes += 1
            if self.live_writes > 1:
                raise write_error(OSError(errno.ENOSPC, "No space left on device"), path)

    def write_temp(self, path, data, mode):
        self._live_write(path)
        return super().write_temp(path, data, mode)

    def overwrite(self, path, data, mode):
        self._live_write(path)
        super().overwrite(path, data, mode)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_a_full_disk_during_the_undo_is_repaired_by_the_next_command(
    cli, tmp_path, monkeypatch, setup
):
    before, after, _, _ = states(tmp_path, monkeypatch, setup)
    home, project = fresh(tmp_path, monkeypatch, f"full-{setup}", setup)
    with pytest.raises(StoreError) as failed:
        adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=FullDisk(project))
    assert (
        "disk full" in failed.value.message
        and "putting the files back failed too" in failed.value.message
    )
    assert snapshot(project) not in (before, after)  # the half state a full disk leaves...
    r = cli("status", cwd=project)  # ...until the disk has room again and any command runs
    assert r.code == 0 and f"an interrupted adoption of night {NIGHT} was undone" in r.out
    assert snapshot(project) == before and home.store.night(NIGHT).state == "staged"
    r = cli("reject", cwd=project)
    assert r.code == 0 and "nothing live changed" in r.out and snapshot(project) == before


def test_a_full_disk_during_rollback_is_finished_by_the_next_command(cli, tmp_path, monkeypatch):
    before, after, _, _ = states(tmp_path, monkeypatch, "plain")
    home, project = fresh(tmp_path, monkeypatch, "full-rollback", "plain")
    adopt(home.store, home.paths, home.store.night(NIGHT), clock())
    full = FullDisk(project)
    with pytest.raises(
        StoreError, match=f"the rollback of night {NIGHT} in .* is unfinished: disk full"
    ) as failed:
        rollback(home.store, home.paths, home.store.night(NIGHT), clock(), ops=full)
    assert failed.value.hint is not None and failed.value.hint.startswith("free some space")
    assert snapshot(project) not in (before, after)
    r = cli("adopt", cwd=project)  # any command finishes the rollback first
    assert f"an interrupted rollback of night {NIGHT} was finished" in r.err
    assert snapshot(project) == before and home.store.night(NIGHT).state == "rolled_back"


KILLER = """
import os, signal, sys
from datetime import datetime, timezone
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.review.adopt import adopt, rollback
from skillopt_sleep.review.fileops import FileOps
from skillopt_sleep.store import Store

verb, at = sys.argv[1], int(sys.argv[2])

class Kill(FileOps):
    count = 0
    def landed(self):
        Kill.count += 1
        if Kill.count == at:
            os.kill(os.getpid(), signal.SIGKILL)
    def replace(self, tmp, path):
        super().replace(tmp, path)
        self.landed()
    def place(self, src, path):
        placed = super().place(src, path)
        self.landed()
        return placed

paths = resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"])
store = Store.open(paths.db)
clock = FixedClock(datetime(2026, 3, 1, 7, 0, tzinfo=timezone.utc))
(adopt if verb == "adopt" else rollback)(store, paths, store.night(sys.argv[3]), clock, ops=Kill())
print("not killed")
"""


@pytest.mark.parametrize("verb, at", [("adopt", 3), ("adopt", 4), ("rollback", 2)])
def test_a_real_kill_9_mid_way(cli, tmp_path, monkeypatch, subprocess_env, verb, at):
    """A real SIGKILL after the ``at``-th file landed in place: adopt lands a backup, the manifest,
    the journal, then AGENTS.md (through the link) and SKILL.md; rollback the journal, then
    AGENTS.md (each live file is set aside, checked, then the new one placed)."""
    before, after, _, _ = states(tmp_path, monkeypatch, "linked")
    home, project = fresh(tmp_path, monkeypatch, f"kill-{verb}-{at}", "linked")
    if verb == "rollback":
        adopt(home.store, home.paths, home.store.night(NIGHT), clock())
    env = dict(subprocess_env, SKILLOPT_SLEEP_HOME=os.environ["SKILLOPT_SLEEP_HOME"])
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, verb, str(at), NIGHT],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    assert journal_path(home.paths, str(project)).exists()
    assert (
        snapshot(project) not in (before, after) or at == 3
    )  # mid-way, except right after the journal
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "status"],
        check=False,
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert snapshot(project) == before
    assert home.store.night(NIGHT).state == ("staged" if verb == "adopt" else "rolled_back")


def test_an_adoption_another_process_is_running_is_left_alone(cli, tmp_path, monkeypatch):
    before, after, _, _ = states(tmp_path, monkeypatch, "plain")
    home, project = fresh(tmp_path, monkeypatch, "busy", "plain")
    with pytest.raises(Crash):  # half way: the journal is on disk, as while an adopt runs
        adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=CrashAt(9, "after"))
    half = snapshot(project)
    assert half not in (before, after)
    with try_lock(home.paths.backups_dir / "adopt.lock") as taken:  # the adopt's process, alive
        assert taken
        assert cli("status", cwd=project).code == 0
        assert snapshot(project) == half and journal_path(home.paths, str(project)).exists()
        r = cli("adopt", cwd=project)
        assert r.code == 9 and "another adopt or rollback is under way" in r.err
        assert snapshot(project) == half
    assert cli("status", cwd=project).code == 0 and snapshot(project) == before


def test_ctrl_c_during_adopt_puts_the_files_back_at_once(cli, tmp_path, monkeypatch):
    before, _, _, _ = states(tmp_path, monkeypatch, "linked")
    home, project = fresh(tmp_path, monkeypatch, "ctrl-c", "linked")

    at_interrupt = []

    def interrupt() -> None:
        at_interrupt.append(snapshot(project))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # right after the first live file is placed (AGENTS.md)
        adopt(
            home.store,
            home.paths,
            home.store.night(NIGHT),
            clock(),
            ops=CrashAt(9, "after", interrupt),
        )
    assert at_interrupt[0]["AGENTS.md"] != before["AGENTS.md"]
    assert snapshot(project) == before and not journal_path(home.paths, str(project)).exists()
    assert home.store.night(NIGHT).state == "staged"


def test_a_night_repairs_an_interrupted_adoption_before_reading_the_files(
    cli, tmp_path, monkeypatch
):
    from skillopt_sleep.night.demo import sample_tasks

    before, _, _, _ = states(tmp_path, monkeypatch, "plain")
    home, project = fresh(tmp_path, monkeypatch, "night", "plain")
    home.store.upsert_tasks(sample_tasks(project), clock().now())
    with pytest.raises(Crash):
        adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=CrashAt(11, "after"))
    assert snapshot(project)["CLAUDE.md"] != before["CLAUDE.md"]  # CLAUDE.md adopted, AGENTS.md not
    assert snapshot(project)["AGENTS.md"] == before["AGENTS.md"]
    r = cli("dry-run", "--project", str(project), "--backend", "simulated", "--json")
    assert r.code == 0, r.err
    assert snapshot(project) == before
