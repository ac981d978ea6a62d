"""The providers' prompt caches, kept by the loopback server from the prefixes it really sees.

* Anthropic caches the prompt up to a ``cache_control`` breakpoint (tools, then system, then
  messages, in that order). A call whose prefix up to a breakpoint was written before, and not
  expired (5 minutes, or an hour for ``"ttl": "1h"``, refreshed by each read), reads it
  (``cache_read_input_tokens``); the tokens from there to the last breakpoint are written
  (``cache_creation_input_tokens``, split by lifetime in ``cache_creation``); ``input_tokens`` is
  the rest.
* OpenAI caches automatically: the longest prefix seen before, in steps of 128 tokens from 1,024
  on, is reported as ``cached_tokens`` (part of the prompt tokens). ``prompt_cache_key`` only
  steers routing there; one loopback server has one cache.

Prefixes shorter than ``min_tokens`` are never cached, as at both providers. A call's prefixes
become readable only once it has been answered (:meth:`PromptCache.commit`), so calls sent at the
same moment all miss, as they do at a provider.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .replies import count_tokens, input_tokens

OPENAI_STEP = 128
TTL_S = 300.0
TTLS = {"5m": 300.0, "1h": 3600.0}


@dataclass(frozen=True)
class CacheUse:
    """What one call wrote to and read from the cache (tokens; ``write_1h`` of them for an hour),
    and the prefixes to register with their lifetimes."""

    write: int = 0
    read: int = 0
    keys: tuple[tuple[str, float], ...] = ()
    write_1h: int = 0


NO_CACHE = CacheUse()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def anthropic_breakpoints(body: Mapping[str, Any]) -> list[tuple[str, float]]:
    """The serialized prompt up to each ``cache_control`` breakpoint, shortest first, with the
    lifetime the breakpoint asks for."""
    blocks: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    blocks += [{"type": "text", "text": system}] if isinstance(system, str) else list(system or [])
    for msg in body.get("messages") or []:
        content = msg.get("content")
        parts = (
            [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        )
        blocks += [dict(p, role=msg.get("role")) for p in parts]
    out, seen = [], ""
    for block in blocks:
        bare = (
            {k: v for k, v in block.items() if k != "cache_control"}
            if isinstance(block, dict)
            else block
        )
        seen += _dump(bare)
        control = block.get("cache_control") if isinstance(block, dict) else None
        if control:
            out.append((seen, TTLS.get(str(control.get("ttl", "5m")), TTL_S)))
    return out


def openai_prompt(body: Mapping[str, Any]) -> str:
    """The serialized prompt of a Chat Completions or Responses body, stable prefix first."""
    head = _dump(body.get("instructions")) if body.get("instructions") else ""
    items = body.get("messages") if "messages" in body else body.get("input")
    if isinstance(items, str):
        return head + _dump(items)
    return head + "".join(_dump(m) for m in items or [])


class PromptCache:
    """Prefix hashes with expiry times, per model; thread-safe."""

    def __init__(
        self,
        min_tokens: int = 1024,
        ttl_s: float = TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.min_tokens, self.ttl_s, self.clock = min_tokens, ttl_s, clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def _live(self, key: str, now: float, ttl: float) -> bool:
        until = self._until.get(key)
        if until is None or until < now:
            return False
        self._until[key] = max(until, now + ttl)  # a read refreshes the entry
        return True

    def lookup(self, api: str, body: Mapping[str, Any]) -> CacheUse:
        """What the call would read and write; nothing is registered until :meth:`commit`."""
        model = str(body.get("model", ""))
        with self._lock:
            if api == "anthropic":
                return self._anthropic(model, body)
            return self._openai(model, body)

    def commit(self, use: CacheUse) -> None:
        """Make the call's prefixes readable (after its answer was produced)."""
        now = self.clock()
        with self._lock:
            for key, ttl in use.keys:
                self._until[key] = max(self._until.get(key, now), now + ttl)

    def _anthropic(self, model: str, body: Mapping[str, Any]) -> CacheUse:
        now, total = self.clock(), input_tokens(body)
        points = [
            (min(total, count_tokens(p)), _sha(model + "\x00" + p), self._ttl(ttl))
            for p, ttl in anthropic_breakpoints(body)
        ]
        points = [point for point in points if point[0] >= self.min_tokens]
        if not points:
            return NO_CACHE
        read = max((n for n, key, ttl in points if self._live(key, now, ttl)), default=0)
        last, _, last_ttl = points[-1]
        write = last - read if last > read else 0
        keys = tuple((key, ttl) for _, key, ttl in points) if write else ()
        return CacheUse(
            write=write, read=read, keys=keys, write_1h=write if last_ttl > TTL_S else 0
        )

    def _ttl(self, asked: float) -> float:
        """The lifetime of an entry: the one asked for (this cache's own for the default)."""
        return self.ttl_s if asked == TTL_S else asked

    def _openai(self, model: str, body: Mapping[str, Any]) -> CacheUse:
        now, text = self.clock(), openai_prompt(body)
        total = min(input_tokens(body), count_tokens(text))
        steps = range(self.min_tokens, total + 1, OPENAI_STEP)
        keys = [(n, _sha(model + "\x00" + text[: n * 4])) for n in steps]
        read = max((n for n, key in keys if self._live(key, now, self.ttl_s)), default=0)
        return CacheUse(read=read, keys=tuple((key, self.ttl_s) for _, key in keys))
