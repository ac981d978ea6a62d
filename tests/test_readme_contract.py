"""The README and every `--help` as a contract: each command they show runs as written, in a
fresh home on the offline `simulated` backend, and exits with a code the README's table explains.

Commands are found, not listed: every line of the README's ```bash blocks and every example in
every help epilog, so a new command or example is covered the day it is written. What cannot run
here is skipped with its reason (SKIPS); the placeholders a reader fills in (`ID`, `NIGHT`,
`[optional parts]`, an example id) are filled with real values of the test's home.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.cli import build_parser, commands, main
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store
from tests.drained import drained

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"

# What cannot run in a test, with the reason. The first match decides.
SKIPS: tuple[tuple[str, str], ...] = (
    (
        r"install/install\.(sh|ps1)",
        "the installer changes the real home; the installer's own tests run it",
    ),
    (r"^bash tests/run\.sh", "runs the test suite, which this test is part of"),
    (
        r"^python3 (?:bench/|-m bench\.)(?!turns\b)",
        "a benchmark takes minutes of CPU; bench/ scripts are run on their own",
    ),
    (r"--backend anthropic\b", "needs the network and an Anthropic API key"),
    (r"--base-url http://localhost:11434", "needs a local Ollama / vLLM / LM Studio server"),
    (r"--backend claude-code\b", "needs a logged-in `claude`"),
    (r"--backend codex\b", "needs a logged-in `codex`"),
    (
        r"^skillopt-sleep schedule run(?!.*--once)",
        "the built-in loop runs until stopped; tests/schedule drive it",
    ),
    (
        r"testing\.model_server",
        "a server that runs until stopped; test_cli_promises starts and stops it",
    ),
    (
        r"\bclaude -p\b",
        (
            "needs the model server of the line before, running, and the real `claude`; "
            "tests/testing/test_real_agents.py drives it"
        ),
    ),
)
TASK_ID = re.compile(r"\bt_[0-9a-f]{4,16}\b")
RULE_ID = re.compile(r"\br[0-9a-f]{8}\b")
NIGHT_ID = re.compile(r"\b\d{8}-\d{4,6}(?:-[0-9a-f]{6})?\b")
TMP_PATH = re.compile(r"/tmp/[\w.-]+")

# A crontab that keeps the table in $FAKE_CRONTAB_FILE: `schedule` lines install into it.
FAKE_CRONTAB = """#!/bin/sh
case "$1" in
  -l) [ -f "$FAKE_CRONTAB_FILE" ] || { echo "no crontab for $USER" >&2; exit 1; }; cat "$FAKE_CRONTAB_FILE";;
  -r) rm -f "$FAKE_CRONTAB_FILE";;
  -) cat > "$FAKE_CRONTAB_FILE";;
  *) cp "$1" "$FAKE_CRONTAB_FILE";;
esac
"""


@dataclass(frozen=True)
class Example:
    """One command as shown: where (README section or help page), its block, its text."""

    where: str
    block: int
    text: str

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def readme_examples() -> list[Example]:
    """Every command line of the README's ```bash blocks (continuations joined)."""
    found, section = [], ""
    blocks = re.finditer(
        r"^(#+ [^\n]*)$|^```bash\n(.*?)^```",
        README.read_text(encoding="utf-8"),
        re.MULTILINE | re.DOTALL,
    )
    for number, match in enumerate(blocks):
        if match.group(1):
            section = match.group(1).lstrip("# ")
            continue
        for line in match.group(2).replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                found.append(Example(f"README '{section}'", number, line.strip()))
    return found


def help_examples() -> list[Example]:
    """Every example in every command's --help."""
    found = []
    for number, (path, sub, _) in enumerate(commands(build_parser())):
        epilog = (sub.epilog or "").partition("example:\n")[2]
        found += [
            Example(f"`{path} --help`", 1000 + number, line.strip())
            for line in epilog.splitlines()
            if line.strip()
        ]
    return found


def readme_exit_codes() -> dict[int, str]:
    table = README.read_text(encoding="utf-8").split("## Exit codes", 1)[1]
    return {
        int(code): meaning
        for code, meaning in re.findall(r"^\| (\d+) \| (.*) \|$", table, re.MULTILINE)
    }


def plain_command(text: str) -> list[str] | None:
    """The words of ``text`` when it is ``skillopt-sleep`` and arguments alone (a trailing
    comment aside), quoted as the shell would; None when the shell does more than start it."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    if not words or words[0] != "skillopt-sleep" or re.search(r"[$`]", text.split(" #", 1)[0]):
        return None
    if any(set(word) <= set("();<>|&") for word in words):
        return None
    return words


def skip_reason(text: str) -> str | None:
    command = text.split(" #", 1)[0]  # a trailing comment is prose
    return next((why for pattern, why in SKIPS if re.search(pattern, command)), None)


def _unless_gone(
    func: object, path: str, exc_info: tuple[type[BaseException], BaseException, object]
) -> None:
    """shutil.rmtree's error handler: a file that vanished meanwhile is fine, anything else is not."""
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]


@dataclass
class Home:
    """A user's home after a few nights: `code/app` with its tasks logged, one night adopted and
    the next one staged; a user config that picks the offline backend and the crontab."""

    root: Path
    snapshot: Path
    env: dict[str, str]
    task_id: str
    night_id: str  # staged, pending review
    adopted_id: str = ""
    rule_id: str = ""  # an adopted rule of the adopted night

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.home / "code" / "app"

    def restore(self) -> None:
        drained(self.root)  # the drainer a `log` example started writes nothing into the next home
        # A drainer past its lock may still close the store, which removes its -wal file while
        # the tree is being removed: a file already gone is what removing it wanted.
        if sys.version_info >= (3, 12):
            shutil.rmtree(self.root, onexc=lambda f, p, e: _unless_gone(f, p, (type(e), e, None)))
        else:
            shutil.rmtree(self.root, onerror=_unless_gone)
        shutil.copytree(self.snapshot, self.root, symlinks=True)

    def run(self, text: str) -> tuple[int, str]:
        """Run one example line as a user types it; its exit code and what it wrote to stderr.
        A plain ``skillopt-sleep ARGS`` line runs the same CLI in this process (a new Python for
        each took most of the contract's time); a line that needs the shell (a pipe, a
        redirection, a variable) runs in bash, as written."""
        text = TMP_PATH.sub(lambda m: f"{self.root}/tmp/{m.group(0)[5:]}", text)
        # A line that names a file of the checkout (bench/..., tests/...) runs from the checkout.
        cwd = REPO if re.search(r"(^|\s)(bench|tests|skillopt_sleep)/", text) else self.project
        argv = plain_command(text)
        if argv is not None:
            home = self.env["HOME"]
            argv = [home + arg[1:] if arg == "~" or arg.startswith("~/") else arg for arg in argv]
            code, _, stderr = self.in_process(argv[1:], cwd)
            return code, stderr
        r = self.shell(text, cwd)
        return r.returncode, r.stderr

    @contextlib.contextmanager
    def environ(self) -> Iterator[pytest.MonkeyPatch]:
        """``os.environ`` holding the home's environment alone, as a shell started in it would
        (the platform's user dirs are read from it)."""
        with pytest.MonkeyPatch.context() as patch:
            for var in list(os.environ):
                patch.delenv(var)
            for var, value in self.env.items():
                patch.setenv(var, value)
            yield patch

    def in_process(self, argv: list[str], cwd: Path) -> tuple[int, str, str]:
        """The CLI's ``main`` under the home's environment and working directory, as the shell
        would start it: its exit code, stdout and stderr."""
        out, err = io.StringIO(), io.StringIO()
        with self.environ() as patch:
            patch.chdir(cwd)
            try:
                code = main(
                    argv, env=self.env, stdin=io.StringIO(), stdout=out, stderr=err, cwd=cwd
                )
            except SystemExit as exc:  # what a new Python would have exited with
                code = exc.code if isinstance(exc.code, int) else 1
        return code, out.getvalue(), err.getvalue()

    def shell(self, text: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", text],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
            check=False,
        )


USER_CONFIG = """[roles.target]
backend = "simulated"
[roles.optimizer]
backend = "simulated"
[roles.judge]
backend = "simulated"
[schedule]
method = "crontab"
"""
TASKS_TOML = (
    '[[task]]\nintent = "Write the changelog"\nchecks = [{kind = "contains", value = "## 1.0"}]\n'
)
TASKS_JSONL = '{"intent": "Name the release", "checks": [{"kind": "max_chars", "value": 40}]}\n'


def _setup_run(home: Home, *argv: str) -> str:
    """One command of the home's making, run in this process like the plain examples (a new
    process for each took most of the making); its stdout."""
    code, out, err = home.in_process(list(argv), home.project)
    assert code == 0, (argv, out, err)
    return out


@pytest.fixture(scope="module")
def user_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("contract") / "state"
    bindir = tmp_path_factory.mktemp("contract-bin")
    for name, body in {
        "skillopt-sleep": f'#!/bin/sh\nexec "{sys.executable}" -m skillopt_sleep "$@"\n',
        "python3": f'#!/bin/sh\nexec "{sys.executable}" "$@"\n',
        "crontab": FAKE_CRONTAB,
    }.items():
        (bindir / name).write_text(body)
        (bindir / name).chmod(0o755)
    env = {
        "HOME": str(root / "home"),
        "PATH": f"{bindir}:/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "TERM": "dumb",
        "USER": "tester",
        "LANG": "C.UTF-8",
        "FAKE_CRONTAB_FILE": str(root / "crontab"),
        # The examples' Pythons start from this environment, not the suite's: no bytecode in
        # the checkout, as for every other test (run.sh sets the same).
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    home = Home(root, root.with_name("snapshot"), env, "", "")
    for sub in ("code/app", "code/api", "work/app"):
        (home.home / sub).mkdir(parents=True)
    (root / "tmp").mkdir()
    with home.environ():
        _make_home(home)
    shutil.copytree(root, home.snapshot, symlinks=True)
    return home


def _make_home(home: Home) -> None:
    """Log the sample tasks in ``code/app``, adopt a night, stage the next, and write the files
    the examples name."""
    config = Path(json.loads(_setup_run(home, "config", "path", "--json"))["user_config"]["path"])
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG)
    write_sample_project(home.project)
    store = Store.open(resolve_paths(None).ensure().db)
    store.upsert_tasks(sample_tasks(home.project), datetime.now(timezone.utc))
    store.close()
    _setup_run(home, "run", "--quiet")
    _setup_run(home, "adopt")
    home.adopted_id = json.loads(_setup_run(home, "status", "--json"))["nights"][0]["night_id"]
    home.rule_id = json.loads(_setup_run(home, "rules", "--json"))["rules"][0]["id"]
    _setup_run(home, "run", "--quiet")
    (home.project / "tasks.toml").write_text(TASKS_TOML)
    (home.project / "tasks.jsonl").write_text(TASKS_JSONL)
    sample = REPO / "skillopt_sleep" / "sample" / "train"
    shutil.copy(sample / "tasks.jsonl", home.project / "train.jsonl")  # a task set for `train`
    shutil.copy(sample / "SKILL.md", home.project / "SKILL.md")
    (home.project / "hook-payload.json").write_text(
        json.dumps(
            {
                "session_id": "s1",
                "transcript_path": "/nonexistent.jsonl",
                "cwd": str(home.project),
                "hook_event_name": "SessionEnd",
                "reason": "exit",
            }
        )
    )
    home.task_id = json.loads(_setup_run(home, "tasks", "list", "--json"))[0]["id"]
    home.night_id = json.loads(_setup_run(home, "status", "--json"))["nights"][0]["night_id"]


def filled(text: str, home: Home) -> str:
    """``text`` with the reader's placeholders filled: optional ``[parts]`` left out, ``ID`` and
    an example task id the home's task, ``NIGHT`` and an example night id its staged night (its
    adopted one for `rollback`, which undoes an adoption), an example rule id an adopted rule."""
    text = re.sub(r" \[[^\]]+\]", "", text)
    text = RULE_ID.sub(home.rule_id, text)
    if re.search(r"\brules remove\b|--rule\b", text):
        text = re.sub(r"\bID\b", home.rule_id, text)
    text = re.sub(r"\bID\b", home.task_id[:8], TASK_ID.sub(home.task_id[:8], text))
    night = home.adopted_id if re.search(r"\brollback\b", text) else home.night_id
    return re.sub(r"\bNIGHT\b", night, NIGHT_ID.sub(night, text))


def _check(example: Example, home: Home, before: list[Example]) -> None:
    why = skip_reason(example.text)
    if why:
        pytest.skip(f"{example.text!r}: {why}")
    home.restore()
    # A line that uses a scratch path (/tmp/...) an earlier line of its block made runs after it.
    for earlier in before:
        if set(TMP_PATH.findall(earlier.text)) & set(TMP_PATH.findall(example.text)):
            code, stderr = home.run(filled(earlier.text, home))
            assert code == 0, (str(earlier), stderr)
    code, stderr = home.run(filled(example.text, home))
    codes = readme_exit_codes()
    assert code in codes, (str(example), code, stderr)
    assert code == 0, (f"{example} exits {code} ({codes[code]})", stderr[-2000:])


READMES = readme_examples()
HELPS = help_examples()


@pytest.mark.parametrize("example", READMES, ids=str)
def test_every_readme_command_runs_as_written(example: Example, user_home: Home) -> None:
    before = [
        e for e in READMES if e.block == example.block and READMES.index(e) < READMES.index(example)
    ]
    _check(example, user_home, before)


@pytest.mark.parametrize("example", HELPS, ids=str)
def test_every_help_example_runs_as_written(example: Example, user_home: Home) -> None:
    before = [
        e for e in HELPS if e.block == example.block and HELPS.index(e) < HELPS.index(example)
    ]
    _check(example, user_home, before)


def test_the_contract_finds_the_commands_it_promises_to_run():
    readme = {e.text.split("#")[0].strip() for e in READMES}
    assert "skillopt-sleep demo --dir /tmp/sleep-demo" in readme
    assert "skillopt-sleep schedule --print" in readme
    assert any(
        e.text.startswith("skillopt-sleep tasks add --intent ") and "--feedback" in e.text
        for e in READMES
    )
    assert {"demo", "run", "review", "tasks add", "schedule"} <= {
        e.where.strip("`").removesuffix(" --help") for e in HELPS
    }
    skipped = [e for e in READMES + HELPS if skip_reason(e.text)]
    assert len(skipped) < len(READMES + HELPS) / 3, [str(e) for e in skipped]


def test_example_ids_look_like_real_ones():
    for example in HELPS:
        for word in example.text.split()[2:]:
            if re.fullmatch(r"[\d-]{6,}", word):
                assert NIGHT_ID.fullmatch(word), (
                    f"{example}: {word!r} is not a night id (YYYYMMDD-HHMMSS-xxxxxx)"
                )
            if word.startswith("t_"):
                assert TASK_ID.fullmatch(word), f"{example}: {word!r} is not a task id (t_ and hex)"
