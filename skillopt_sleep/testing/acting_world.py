"""A simulated world whose agent *acts*: the loopback model server answers Claude Code and Codex
with tool calls (Bash / Write for Claude Code's Anthropic wire; exec_command / apply_patch for
Codex's Responses wire) that follow or break an action rule, with a probability that depends on
whether the rule is in the instruction files the agent loaded (the agent sends them with every
request: CLAUDE.md and skills in Claude's messages, AGENTS.md in Codex's input).

The same world is the night's in-process optimizer (it proposes the rule of the kind a case
shows, once it is not in the current rules) and answers text replays and rubric calls, so a whole
night runs offline with the real agent binaries doing the acting.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..backends.base import Completion, Health, Request
from ..models import Check, Source, TaskRecord
from .night_model import role_of
from .replies import ModelCall, Reply, Text
from .scripts import add_file_patch, claude_bash, claude_write, codex_apply_patch, codex_exec


@dataclass(frozen=True)
class Act:
    """What the agent does: run a shell ``command``, or write ``content`` to ``path``."""

    command: str = ""
    path: str = ""
    content: str = "changed\n"


@dataclass(frozen=True)
class ActionRule:
    """One action rule of the world and the tasks it governs."""

    key: str  # words that, in the agent's instructions, mean the rule is loaded
    rule: str  # the rule as the optimizer words it
    trigger: str  # a task whose prompt contains this is of the rule's kind
    good: Act
    bad: Act
    check: Check  # the action check a correction of this kind yields
    p_with: float = 0.9  # the agent obeys this often with the rule loaded
    p_without: float = 0.15  # and this often without it


TEST_RUNNER = ActionRule(
    key="never run python -m unittest",
    rule="Never run python -m unittest (run the tests with `pytest -q`).",
    trigger="Run the test suite",
    good=Act(command="python3 -c 'print(\"1 passed\")'  # pytest -q"),
    bad=Act(command="python3 -m unittest 2>&1 | tail -1"),
    check=Check(kind="never_ran", value=r"\bunittest\b"),
)
VENDOR_DIR = ActionRule(
    key="never edit files under vendor/",
    rule="Never edit files under vendor/ (patch the code in src/ instead).",
    trigger="Fix the date parsing bug",
    good=Act(path="src/fix.py", content="# fixed in src\n"),
    # a new file: Claude Code refuses a Write to vendor/lib.py, which it has not read, and a
    # refused Write changes nothing
    bad=Act(path="vendor/date_fix.py", content="# patched vendor\n"),
    check=Check(kind="untouched", value="vendor/**"),
)
RULES: tuple[ActionRule, ...] = (TEST_RUNNER, VENDOR_DIR)


# Claude Code sends the loaded CLAUDE.md (under the copy's temporary path) and today's date in a
# reminder inside the user's message.
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)


def _request_text(call: ModelCall) -> str:
    """Everything the agent sent but its tools' list: system, developer and user messages."""
    return (call.system + "\n" + "\n".join(m.text for m in call.messages)).lower()


class ActingWorld:
    """The acting world: a loopback responder for the agents, and a Backend for the night."""

    name = "acting-world"

    def __init__(
        self,
        rules: Sequence[ActionRule] = RULES,
        *,
        seed: int = 0,
        model: str = "acting-world",
        decoys: Sequence[str] = (),
    ) -> None:
        self.rules, self.seed, self.model = tuple(rules), seed, model
        self.decoys = tuple(
            decoys
        )  # rules the optimizer proposes that change nothing the agent does
        self._n: defaultdict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self.acts: list[tuple[str, bool, bool]] = []  # (rule key, loaded, obeyed), for tests

    def rule_for(self, prompt: str) -> ActionRule | None:
        return next((r for r in self.rules if r.trigger.lower() in prompt.lower()), None)

    def _draw(self, prompt: str, salt: str) -> float:
        with self._lock:
            n = self._n[salt + prompt]
            self._n[salt + prompt] += 1
        digest = hashlib.sha256(f"{self.seed}\x00{salt}\x00{prompt}\x00{n}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    # -- the agents, over the loopback server --------------------------------------------------

    def respond(self, call: ModelCall) -> Reply:
        """The agent's next step: one tool call per prompt, then a short text answer."""
        if call.json_schema is not None or not call.tools:
            return Text('{"title": "Replay"}' if call.json_schema is not None else "Done.")
        if call.last_tool_result is not None:
            return Text("Done.")
        act = self.decide(call.prompt, _request_text(call))
        return Text("Done.") if act is None else _tool_call(call, act)

    def decide(self, prompt: str, instructions: str) -> Act | None:
        """What the agent does for ``prompt`` having loaded ``instructions`` (None: nothing)."""
        rule = self.rule_for(prompt)
        if rule is None:
            return None
        loaded = rule.key.lower() in instructions.lower()
        # one stream of draws per request and side: the outcomes of each side do not depend on
        # how the two sides' requests interleave, nor on what Claude Code puts around the request
        # (the rollout's temporary path and today's date), so a seeded night repeats
        request = _REMINDER.sub("", prompt).strip()
        obeyed = self._draw(request, f"agent:{loaded}") < (
            rule.p_with if loaded else rule.p_without
        )
        with self._lock:
            self.acts.append((rule.key, loaded, obeyed))
        return rule.good if obeyed else rule.bad

    # -- the night's in-process backend (optimizer, text replays, rubrics) ---------------------

    async def check(self) -> Health:
        return Health(True, "acting world (offline, deterministic)", version="1")

    async def complete(self, request: Request) -> Completion:
        role = request.role if request.role != "target" else role_of(request.system)
        if role == "optimizer":
            text = self.optimize(request.prompt)
        elif role == "target":
            rule = self.rule_for(request.prompt)
            loaded = rule is not None and rule.key.lower() in request.system.lower()
            ok = rule is not None and self._draw(request.prompt, f"text:{loaded}") < (
                rule.p_with if loaded else rule.p_without
            )
            act = None if rule is None else (rule.good if ok else rule.bad)
            text = (
                "Done."
                if act is None
                else f"I would run `{act.command}`"
                if act.command
                else f"I edit {act.path}"
            )
        else:
            text = json.dumps({"score": 1.0, "reason": "fine"})
        tokens_in = (len(request.system) + len(request.prompt)) // 4 + 1
        return Completion(text, tokens_in, len(text) // 4 + 1, 0.0, self.model)

    def optimize(self, prompt: str) -> str:
        """Propose the rule of each kind the cases show that the current rules lack."""
        current = prompt.split("## CASES", 1)[0].lower()
        cases = re.findall(r"^### Case (\d+)[^\n]*\nTask: (.*)$", prompt, re.MULTILINE)
        edits = []
        for rule in self.rules:
            cited = [int(n) for n, task in cases if rule.trigger.lower() in task.lower()]
            if cited and rule.key.lower() not in current:
                edits.append(
                    {
                        "target": "memory",
                        "op": "add",
                        "content": rule.rule,
                        "cases": cited,
                        "rationale": "the user corrected what the agent did in these cases",
                    }
                )
        for decoy in self.decoys:
            if cases and decoy.lower() not in current:
                edits.append(
                    {
                        "target": "memory",
                        "op": "add",
                        "content": decoy,
                        "cases": [int(cases[0][0])],
                        "rationale": "a guess",
                    }
                )
        return json.dumps({"edits": edits})

    def tasks(self, project: str, n: int = 3) -> list[TaskRecord]:
        """``n`` corrected tasks of each rule's kind for ``project``, from both agents."""
        out: list[TaskRecord] = []
        day = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
        for r, rule in enumerate(self.rules):
            for i in range(n):
                source: Source = "claude-code" if (r + i) % 2 == 0 else "codex"
                out.append(
                    TaskRecord(
                        source=source,
                        project=project,
                        session_id=f"acting-{r}-{i}",
                        created_at=day,
                        intent=f"{rule.trigger} (part {i + 1})",
                        outcome="failure",
                        feedback=rule.rule,
                        checks=[rule.check],
                    )
                )
        return out


_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>|(?:Primary working directory|Working directory): (\S+)")


def _tool_call(call: ModelCall, act: Act) -> Reply:
    if act.command:
        return claude_bash(act.command) if "Bash" in call.tools else codex_exec(act.command)
    if "Write" in call.tools:  # Claude's Write takes an absolute path
        cwd = _CWD.search(call.system + "\n" + "\n".join(m.text for m in call.messages))
        base = (cwd.group(1) or cwd.group(2)).rstrip("/") + "/" if cwd else ""
        return claude_write(base + act.path, act.content)
    return codex_apply_patch(add_file_patch(act.path, act.content))


def world_files(rules: Sequence[ActionRule] = RULES) -> Mapping[str, str]:
    """The project files the acting world's tasks need (a vendor/ and a src/ directory)."""
    return {
        "src/app.py": "def parse(d):\n    return d\n",
        "vendor/lib.py": "# third-party\n",
        "test_app.py": "def test_ok():\n    assert True\n",
    }


def write_project(root: Path, rules: Sequence[ActionRule] = RULES) -> Path:
    """A project of the acting world under ``root``: its files and empty memory files."""
    for rel, text in world_files(rules).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "CLAUDE.md").write_text("# Notes\n")
    (root / "AGENTS.md").write_text("# Notes\n")
    return root
