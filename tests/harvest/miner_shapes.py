"""Small sessions recorded with the real ``claude`` and ``codex`` for the check miner's shapes: a
correction whose own example a naive check would contradict, corrections in plain words about
the answer's text and files, a correction after a slash command, a scope correction after a
listing, and one preference made three times across sessions.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.miner_shapes tests/fixtures/miner_shapes
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from skillopt_sleep.testing.replies import Reply, Text
from skillopt_sleep.testing.scripts import claude_bash, codex_exec

from .conversations import Scenario, Step, record, rewrite

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "miner_shapes"


def _run(agent: str, command: str, said: str) -> tuple[Reply, ...]:
    call = claude_bash(command) if agent == "claude" else codex_exec(command)
    return (call, Text(said))


def _two(agent: str, project: str, request: str, bad: tuple[Reply, ...], fix: str) -> Scenario:
    steps = (
        Step(request, bad, "new"),
        Step(fix, (Text("Done."),), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


NOTES = "Release notes go under the `## Unreleased` heading, never a new version heading."
SHAPE_SESSIONS: tuple[Scenario, ...] = (
    _two(
        "codex",
        "alpha",
        "Run the tests.",
        _run("codex", "python3 -m unittest discover tests 2>&1 | tail -1", "OK (unittest)."),
        "Use `python3 -m pytest -x`, not unittest",
    ),
    _two(
        "claude",
        "alpha",
        "Free some disk space in the repo.",
        _run("claude", "rm -rf .cache dist", "Removed .cache/ and dist/."),
        "Only ever clear cache folders like `.cache/`; never delete `dist/`",
    ),
    _two(
        "claude",
        "beta",
        "Why did the job fail? The log is app.log.",
        _run("claude", "cat app.log 2>&1 | head -50", "Here is the whole log: ..."),
        "Don't print the whole log into the chat; grep it for ERROR first",
    ),
    _two(
        "codex",
        "epsilon",
        "Write the release notes for 2.1.",
        (Text("## 2.1.0\n- A new CLI"),),
        NOTES,
    ),
    _two(
        "claude",
        "gamma",
        "Add a `timeout` setting to the config.",
        _run("claude", "echo 'timeout = 30' >> config.toml", "Added timeout to config.toml."),
        "Every new setting must also be documented in `docs/settings.md`.",
    ),
    _two(
        "codex",
        "gamma",
        "Link the install page from the README text you write.",
        (Text("See [install](https://example.org/docs/install.md) for details."),),
        "Link to other pages with relative paths, not a full https URL.",
    ),
    _two(
        "claude",
        "delta",
        "Convert every text file to UTF-8.",
        _run(
            "claude",
            "iconv -f latin1 -t utf-8 tests/fixtures/names.txt > tests/fixtures/names.txt",
            "Converted tests/fixtures/names.txt.",
        ),
        "The fixture is Latin-1 on purpose; skip `tests/fixtures/`.",
    ),
    _two(
        "codex",
        "delta",
        "List the Python packages in this repo.",
        (Text("Packages: vendor/six, build/lib/app, src/app"),),
        "leave out `vendor/` and `build/`, only our `src/`",
    ),
    Scenario(
        "slash-notes",
        "claude",
        "epsilon",
        (
            Step("/notes", (Text("## 2.2.0\n- Faster nights"),), "new"),
            Step(NOTES, (Text("## Unreleased\n- Faster nights"),), "resume", "correction", True),
        ),
    ),
    _two(
        "claude",
        "epsilon",
        "Write the release notes for the fix.",
        (Text("## 2.2.1\n- Fix the crash"),),
        "Again: release notes go under `## Unreleased`, not a version heading.",
    ),
)
COMMANDS = {"epsilon": {"notes.md": "Write the release notes for the changes since the last tag."}}


def main(argv: list[str]) -> int:
    dest = Path(argv[0]) if argv else SHAPES
    with tempfile.TemporaryDirectory(prefix="shapes-") as tmp:
        home, work_root = Path(tmp) / "home", Path(tmp) / "work"
        for project, files in COMMANDS.items():  # the slash command a session calls
            commands = work_root / project / ".claude" / "commands"
            commands.mkdir(parents=True)
            for name, body in files.items():
                (commands / name).write_text(body + "\n", encoding="utf-8")
        record(home, work_root, SHAPE_SESSIONS)
        rewrite(home, work_root.resolve(), dest)
    print(f"recorded {len(SHAPE_SESSIONS)} sessions into {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
