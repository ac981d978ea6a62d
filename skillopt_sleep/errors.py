"""The one error tree of skillopt-sleep.

Every error the package raises on purpose is a ``SleepError``. Each class carries the process
exit code the CLI maps it to (``cli.main`` is the only place that turns them into exits), and its
message is one line that names the fix. SDK, subprocess and OS errors are translated into these
at the boundary where they happen (``raise ... from exc``).

    SleepError (1)
    ├── UsageError (2)            bad command line: unknown command, bad flag value
    ├── ConfigError (3)           bad config file / env value
    │   └── UnknownBackend (11)   a backend name that is not registered
    ├── InputError (4)            bad user data: a TaskRecord, a check, a hook payload
    ├── StoreError (5)            the database or a file cannot be read or written (disk full, ...)
    ├── BackendError (6)          a model backend failed
    │   ├── BackendUnavailable    no usable backend, binary missing, not logged in
    │   ├── AuthError             key missing / rejected: stops the night at once
    │   ├── BadRequestError       the provider refused the request as malformed: stops the night
    │   ├── TransientError        429 / 5xx / overloaded / timeout: retried, then an errored rollout
    │   ├── BackendOutage         nothing answers (the circuit breaker tripped): the night stops
    │   └── MalformedOutput       the model answered, but not in the shape asked for
    ├── BudgetExhausted (7)       the night's call/token/cost budget would be exceeded
    ├── ProposalError (8)         adopt/reject/rollback refused: nothing staged, file changed since staging
    ├── LockedError (9)           another night holds the lock
    └── ScheduleError (10)        the OS scheduler could not be read or written

Each class that brings its own exit code says what it means in ``meaning``; :func:`exit_codes`
collects them, with the few exits that are not errors, into the table the README shows (a test
keeps the two the same).
"""

from __future__ import annotations

from collections.abc import Iterator

DONE_EXIT = 0
INTERNAL_ERROR_EXIT = 70
INTERRUPTED_EXIT = 130


class SleepError(Exception):
    """Base of every error skillopt-sleep raises on purpose."""

    exit_code = 1
    meaning = "a problem the output lists: `doctor` found one to fix, a scheduled night failed"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and its fix on one line, as the CLI prints it."""
        text = self.message if not self.hint else f"{self.message} ({self.hint})"
        return " ".join(text.split())


class UsageError(SleepError):
    """The command line is wrong."""

    exit_code = 2
    meaning = (
        "bad command line (unknown command, bad flag or flag value, no such project directory)"
    )


class ConfigError(SleepError):
    """A setting (file, env or flag) is invalid, or names something unknown."""

    exit_code = 3
    meaning = "bad setting (config file, environment)"


class UnknownBackend(ConfigError):
    """A backend name that no registered backend answers to."""

    exit_code = 11
    meaning = "unknown backend name (the message lists the choices)"


class InputError(SleepError):
    """User-supplied data (a task record, a check, a hook payload) is invalid."""

    exit_code = 4
    meaning = "bad input (a task record, a check, a hook payload)"


class StoreError(SleepError):
    """The store or a staged/live file could not be read or written."""

    exit_code = 5
    meaning = (
        "store or file could not be read or written "
        "(disk full, permissions, an agent's sandbox, a corrupt store, a store a newer "
        "skillopt-sleep wrote)"
    )


class StoreNotWritable(StoreError):
    """A command must write under ``where`` and may not: a sandbox or the permissions."""

    def __init__(self, message: str, *, where: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.where = where


class BackendError(SleepError):
    """A model backend failed. Subclasses say whether retrying can help."""

    exit_code = 6
    meaning = (
        "model backend failed (no backend, auth, bad request, an outage that stopped the night)"
    )
    retryable = False

    def __init__(
        self, message: str, *, hint: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class BackendUnavailable(BackendError):
    """No usable backend: binary missing, CLI not logged in, nothing configured."""


class AuthError(BackendError):
    """The credentials are missing or were rejected. Stops the night at once."""


class BadRequestError(BackendError):
    """The provider rejected the request itself (unknown model, bad parameter)."""


class TransientError(BackendError):
    """Rate limit, overload, server error or timeout: worth retrying."""

    retryable = True


class BackendOutage(BackendError):
    """The backend answers nothing: the night's circuit breaker tripped. Stops the night."""


class MalformedOutput(BackendError):
    """The model answered, but the answer could not be parsed into what was asked."""


class TurnLimit(MalformedOutput):
    """An agent replay ran into its turn limit: an errored rollout, though the agent works."""


class BudgetExhausted(SleepError):
    """The next call would exceed the night's budget."""

    exit_code = 7
    meaning = "budget exhausted (the night stopped cleanly and says what it skipped)"


class ProposalError(SleepError):
    """A proposal cannot be adopted, rejected or rolled back as asked."""

    exit_code = 8
    meaning = "proposal cannot be adopted / rejected / rolled back as asked"


class LockedError(SleepError):
    """Another night is running."""

    exit_code = 9
    meaning = "another night is running"


class ScheduleError(SleepError):
    """The OS scheduler could not be inspected or changed."""

    exit_code = 10
    meaning = "the OS scheduler could not be read or changed, or none is usable here"


_OUTSIDE_THE_TREE = {
    DONE_EXIT: "done",
    INTERNAL_ERROR_EXIT: "internal error (rerun with `--debug` and report it)",
    INTERRUPTED_EXIT: "interrupted (Ctrl-C)",
}


def _tree(cls: type[SleepError]) -> Iterator[type[SleepError]]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _tree(sub)


def exit_codes() -> dict[int, str]:
    """Every exit code the command line returns, and what it means, in order."""
    rows = dict(_OUTSIDE_THE_TREE)
    for cls in _tree(SleepError):
        if "meaning" in vars(cls):
            rows.setdefault(cls.exit_code, cls.meaning)
    return dict(sorted(rows.items()))


def exit_code_table() -> str:
    """:func:`exit_codes` as the Markdown table of the README's "Exit codes" section."""
    lines = ["| code | meaning |", "|---|---|"]
    lines += [f"| {code} | {meaning} |" for code, meaning in exit_codes().items()]
    return "\n".join(lines) + "\n"
