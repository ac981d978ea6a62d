"""The circuit breaker of a night's agent replays: an agent that keeps failing stops being run.

An agent rollout costs minutes and tens of thousands of tokens. When the binary crashes, the
sandbox cannot start, the model API is unreachable through the tunnel or every rollout runs into
its time limit, each further rollout fails the same way at the same price. So ``threshold``
failed agent rollouts in a row (any error but a run stopped at its turn limit: that agent works)
trip the breaker for that agent: the night's remaining rollouts of its tasks are refused before
they start (errored rollouts, no evidence, no cost), and the night says so once. The rest of the
night goes on. Text replays are not mixed in instead: a task scored partly by the agent and
partly as text would compare unlike rollouts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import BackendError, MalformedOutput, TurnLimit


@dataclass
class AgentBreaker:
    """Counts one agent's failed rollouts in a row; see the module docstring."""

    agent: str
    threshold: int = 3
    failures: int = 0  # in a row
    tripped: str = ""  # the note, once tripped

    def check(self) -> None:
        """Refuse the rollout once tripped (an errored rollout, before anything is spent)."""
        if self.tripped:
            raise MalformedOutput(self.tripped)

    def succeeded(self) -> None:
        self.failures = 0

    def failed(self, exc: BackendError) -> bool:
        """Count a failed rollout; True when this one tripped the breaker."""
        if isinstance(exc, TurnLimit):
            self.succeeded()
            return False
        self.failures += 1
        if self.tripped or self.failures < self.threshold:
            return False
        self.tripped = (
            f"agent replay of {self.agent} stopped: {self.failures} rollouts in a row failed "
            f"(last: {exc.one_line()}); its remaining rollouts tonight were not run"
        )
        return True
