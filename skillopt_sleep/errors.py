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
"""

from __future__ import annotations


class SleepError(Exception):
    """Base of every error skillopt-sleep raises on purpose."""

    exit_code = 1

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


class ConfigError(SleepError):
    """A setting (file, env or flag) is invalid, or names something unknown."""

    exit_code = 3


class UnknownBackend(ConfigError):
    """A backend name that no registered backend answers to."""

    exit_code = 11


class InputError(SleepError):
    """User-supplied data (a task record, a check, a hook payload) is invalid."""

    exit_code = 4


class StoreError(SleepError):
    """The store or a staged/live file could not be read or written."""

    exit_code = 5


class BackendError(SleepError):
    """A model backend failed. Subclasses say whether retrying can help."""

    exit_code = 6
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


class BudgetExhausted(SleepError):
    """The next call would exceed the night's budget."""

    exit_code = 7


class ProposalError(SleepError):
    """A proposal cannot be adopted, rejected or rolled back as asked."""

    exit_code = 8


class LockedError(SleepError):
    """Another night is running."""

    exit_code = 9


class ScheduleError(SleepError):
    """The OS scheduler could not be inspected or changed."""

    exit_code = 10
