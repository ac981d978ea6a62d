"""Every escape attempt in one replay: the agent starts once and runs each escape command in turn.

Starting a real agent costs far more than one of its shell calls, so one rollout attempts every
escape, and each is still judged alone: when the agent asks for its next step (the command's
result is back), what changed outside the copy since the start is put down to the escape just
run, with its output. The deleting escape goes last: nothing after it depends on the copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from skillopt_sleep.testing.replies import ModelCall, Reply, Text
from skillopt_sleep.testing.scripts import shell_call, tool_output

Snapshot = Callable[[], dict[str, str]]
Tool = Callable[[ModelCall, str], Reply]


class EscapeRun:
    """A responder that runs ``commands`` one per turn and notes what each one did."""

    def __init__(
        self, commands: Mapping[str, str], snapshot: Snapshot, tool: Tool = shell_call
    ) -> None:
        self.tool = tool
        last = [name for name in commands if name == "delete-parent"]
        self.order = [name for name in commands if name not in last] + last
        self.commands = dict(commands)
        self.snapshot = snapshot
        self.before: dict[str, str] = {}
        self.outputs: dict[str, str] = {}
        self.changed: dict[str, list[str]] = {}
        self.issued: list[str] = []

    def start(self) -> None:
        """The disk as it is before the rollout: every later change is an escape's."""
        self.before = self.snapshot()

    def _moved(self) -> list[str]:
        now = self.snapshot()
        seen = {path for paths in self.changed.values() for path in paths}
        keys = set(now) | set(self.before)
        return sorted(k for k in keys if now.get(k) != self.before.get(k) and k not in seen)

    def __call__(self, call: ModelCall) -> Reply:
        results = call.tool_results
        for name, result in zip(self.issued, results, strict=False):
            if name not in self.outputs:
                self.outputs[name] = tool_output(result)
                self.changed[name] = self._moved()
        step = len(results)
        if step < len(self.order) and len(self.issued) == step:
            self.issued.append(self.order[step])
            return self.tool(call, self.commands[self.order[step]])
        return Text("Done. " + " | ".join(self.outputs.values()))

    def finish(self, said: str) -> dict[str, str]:
        """What each escape did that it must not have, by name (empty: every one was blocked).

        Changes found only after the rollout are put down to the last escape that ran.
        """
        if self.issued and self.issued[-1] not in self.changed:
            self.outputs[self.issued[-1]] = said
        moved = self._moved()
        if self.issued:
            self.changed[self.issued[-1]] = self.changed.get(self.issued[-1], []) + moved
        failed = {name: "never attempted" for name in self.order if name not in self.issued}
        for name in self.issued:
            if self.changed.get(name):
                failed[name] = f"changed outside the copy: {self.changed[name]}"
            elif "REACHED" in self.outputs.get(name, ""):
                failed[name] = f"reached the network: {self.outputs[name]!r}"
        return failed


def watch(*roots: Path, snapshot: Callable[[Path], dict[str, str]]) -> Snapshot:
    """One snapshot over several roots, each path keyed by its root."""

    def take() -> dict[str, str]:
        return {f"{root}/{k}": v for root in roots for k, v in snapshot(root).items()}

    return take
