"""HTTP status codes of model APIs translated into the error tree, shared by the SDK backends."""

from __future__ import annotations

import difflib
import email.utils
import time
from collections.abc import Iterable, Mapping

from ..errors import AuthError, BackendError, BadRequestError, TransientError

# Statuses a retry may fix. 529 is Anthropic's "overloaded"; 408/409/425 are what both SDKs retry.
TRANSIENT_STATUS = frozenset({408, 409, 425, 429})


def retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or
    an HTTP date. None when absent or unreadable."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def did_you_mean(model: str, known: Iterable[str]) -> str:
    """``", did you mean X?"`` for the closest known model name, or ``""``."""
    close = difflib.get_close_matches(model, list(known), n=1, cutoff=0.5)
    return f", did you mean {close[0]}?" if close else ""


def status_error(
    provider: str,
    status: int,
    detail: str,
    *,
    model: str,
    key_env: str,
    base_url: str,
    headers: Mapping[str, str] | None = None,
    known_models: Iterable[str] | None = None,
) -> BackendError:
    """The error for an HTTP ``status`` answered by ``provider`` (``detail``: the API's message)."""
    detail = " ".join((detail or "").split())[:300]
    if status == 401:
        return AuthError(
            f"{provider} rejected the API key (401 at {base_url})", hint=f"check {key_env}"
        )
    if status in (402, 403):
        return AuthError(
            f"{provider} refused access ({status}): {detail}",
            hint=f"check the account and the permissions of {key_env}",
        )
    if status == 404:
        known = list(known_models or ())
        if model not in known and (known or "model" in detail.lower()):
            return BadRequestError(
                f"unknown model {model}{did_you_mean(model, known)}",
                hint="set --model or roles.<role>.model to a model the server has",
            )
        return BadRequestError(
            f"{base_url} answered 404 Not Found: {detail}",
            hint="check base_url (OpenAI-compatible servers usually end in /v1)",
        )
    if status in TRANSIENT_STATUS or status >= 500:
        what = {429: "is rate limiting", 529: "is overloaded"}.get(status, "had a server error")
        return TransientError(
            f"{provider} {what} ({status}): {detail}", retry_after=retry_after(headers)
        )
    return BadRequestError(
        f"{provider} refused the request ({status}): {detail}",
        hint="check the model name and the role's parameters",
    )
