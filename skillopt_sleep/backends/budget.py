"""The night's budget: calls, tokens and money, checked *before* every model call.

Every attempt sent to a model counts as a call, including one that failed (a rate-limited or
timed-out request still went out), so ``max_calls`` bounds what a night sends, outages included.
Before each attempt :meth:`Budget.reserve` holds the attempt's expected tokens (an estimate of
the prompt plus ``max_tokens``) and cost (from the price table), so concurrent calls cannot
together overshoot a limit; :meth:`Budget.settle` releases the hold when the attempt ends.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import BudgetExhausted, ConfigError
from ..models import Usage
from ..settings import BudgetSettings, Price
from .base import Completion, Request

# USD per million tokens (input, output), matched by longest prefix of the model name.
# Overridable (and extendable) with [budget.prices."model"] in the config.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "opus": (15.0, 75.0),  # claude CLI aliases
    "sonnet": (3.0, 15.0),
    "haiku": (1.0, 5.0),
    "claude-code-default": (15.0, 75.0),  # the claude CLI's default is an Opus model
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-5-nano": (0.05, 0.4),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "o3": (2.0, 8.0),
    "o4-mini": (1.1, 4.4),
    "simulated": (0.0, 0.0),
}
# OpenAI's list price of cached input (USD per million tokens); it charges nothing extra to write.
OPENAI_CACHED_INPUT: dict[str, float] = {
    "gpt-5": 0.125,
    "gpt-5-mini": 0.025,
    "gpt-5-nano": 0.005,
    "gpt-4.1": 0.5,
    "gpt-4.1-mini": 0.1,
    "gpt-4.1-nano": 0.025,
    "gpt-4o": 1.25,
    "gpt-4o-mini": 0.075,
    "o3": 0.5,
    "o4-mini": 0.275,
}
# Anthropic's prompt cache: a 5-minute write costs 1.25x input, a 1-hour write 2x, a read 0.1x.
ANTHROPIC_CACHE_WRITE = 1.25
ANTHROPIC_CACHE_WRITE_1H = 2.0
ANTHROPIC_CACHE_READ = 0.1
ANTHROPIC_NAMES = ("claude", "opus", "sonnet", "haiku")
BATCH_DISCOUNT = 0.5  # both providers' batch APIs charge half of every token price
CHARS_PER_TOKEN = 4  # rough, for the pre-call estimate only


class ModelPrice(NamedTuple):
    """USD per million tokens: fresh input, output, input written to and read from the cache,
    and input written to the cache for an hour (Anthropic's longer cache, used for batches)."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    cache_write_1h: float


def _base_name(model: str) -> str:
    """``anthropic/claude-x[1m]`` -> ``claude-x``: gateway prefixes and CLI suffixes dropped."""
    return model.rsplit("/", 1)[-1].split("[", 1)[0]


def _longest(name: str, names: Iterable[str]) -> str | None:
    return max((p for p in names if name.startswith(p)), key=len, default=None)


def _cache_prices(model: str, input_price: float) -> tuple[float, float, float]:
    """(write, read, 1-hour write) prices of cached input for a model without explicit ones:
    Anthropic's multipliers, OpenAI's cached-input price, else no discount."""
    name = _base_name(model)
    if name.startswith(ANTHROPIC_NAMES):
        return (
            input_price * ANTHROPIC_CACHE_WRITE,
            input_price * ANTHROPIC_CACHE_READ,
            input_price * ANTHROPIC_CACHE_WRITE_1H,
        )
    best = _longest(name, OPENAI_CACHED_INPUT)
    return input_price, OPENAI_CACHED_INPUT[best] if best is not None else input_price, input_price


def price_for(model: str, overrides: dict[str, Price]) -> ModelPrice | None:
    """Price of ``model``: an exact override, else the longest matching prefix among the overrides
    and the defaults (an override wins a tie). None if unknown."""
    table: dict[str, Price | tuple[float, float]] = dict(DEFAULT_PRICES)
    table.update(overrides)
    key = next((n for n in (model, _base_name(model)) if n in table), None)
    key = key or _longest(_base_name(model), table)
    if key is None:
        return None
    found = table[key]
    if isinstance(found, Price):
        write, read, long_write = _cache_prices(model, found.input)
        return ModelPrice(
            found.input,
            found.output,
            write if found.cache_write is None else found.cache_write,
            read if found.cache_read is None else found.cache_read,
            long_write if found.cache_write_1h is None else found.cache_write_1h,
        )
    return ModelPrice(found[0], found[1], *_cache_prices(model, found[0]))


def cost_for(
    model: str,
    input_tokens: int,
    output_tokens: int,
    overrides: dict[str, Price],
    *,
    cache_write: int = 0,
    cache_read: int = 0,
    cache_write_1h: int = 0,
    batched: bool = False,
) -> float | None:
    """USD cost of a call of ``model``; None if its price is unknown. ``input_tokens`` counts the
    whole prompt, of which ``cache_write`` / ``cache_read`` tokens are priced as such
    (``cache_write_1h`` of the written ones at the 1-hour price)."""
    price = price_for(model, overrides)
    if price is None:
        return None
    fresh = max(0, input_tokens - cache_write - cache_read)
    long_write = min(cache_write_1h, cache_write)
    usd = (
        fresh * price.input
        + (cache_write - long_write) * price.cache_write
        + long_write * price.cache_write_1h
        + cache_read * price.cache_read
        + output_tokens * price.output
    ) / 1_000_000
    return usd * BATCH_DISCOUNT if batched else usd


def cap_set_by_user(limits: BudgetSettings) -> bool:
    """Whether ``max_cost_usd`` is a cap the user wrote (a config file, the environment, a flag),
    not the default one: the default gives way for a model with no price (a local model)."""
    return limits.max_cost_usd is not None and "max_cost_usd" in limits.model_fields_set


def unpriced_cap(limits: BudgetSettings, models: Iterable[str]) -> ConfigError | None:
    """The error of a money cap the user set that the budget cannot hold: some of ``models`` has
    no price, so the cost of its calls is unknown (None: the cap is held, or none was set)."""
    if not cap_set_by_user(limits):
        return None
    unpriced = sorted({m for m in models if price_for(m, limits.prices) is None})
    if not unpriced:
        return None
    return ConfigError(
        f"budget.max_cost_usd = {limits.max_cost_usd} cannot be held: no price for "
        + ", ".join(unpriced),
        hint=f'add [budget.prices."{unpriced[0]}"] input = ..., output = ... (USD per million '
        "tokens) to the config, or remove max_cost_usd",
    )


def estimate_tokens(request: Request) -> tuple[int, int]:
    """(input, output) tokens an attempt may use: the prompt's length, and ``max_tokens``."""
    chars = len(request.system) + sum(len(m.content) for m in request.messages)
    return chars // CHARS_PER_TOKEN + 1, request.max_tokens


@dataclass(frozen=True)
class Hold:
    """What one in-flight attempt holds of the budget."""

    tokens: int
    cost_usd: float


@dataclass
class Budget:
    """Tracks spending per role and refuses an attempt that could go over a limit."""

    limits: BudgetSettings
    by_role: dict[str, Usage] = field(default_factory=dict)
    unpriced_models: set[str] = field(default_factory=set)
    failed_calls: dict[str, int] = field(default_factory=dict)
    _held: list[Hold] = field(default_factory=list, repr=False)

    @property
    def total(self) -> Usage:
        return sum(self.by_role.values(), Usage())

    def check(self, expected_tokens: int = 0, expected_cost_usd: float = 0.0) -> None:
        """Raise ``BudgetExhausted`` if one more call (of about ``expected_tokens`` tokens and
        ``expected_cost_usd``) could exceed a limit, counting the attempts in flight."""
        t, lim = self.total, self.limits
        calls = t.calls + len(self._held)
        tokens = t.tokens + sum(h.tokens for h in self._held)
        cost = t.cost_usd + sum(h.cost_usd for h in self._held)
        if lim.max_calls is not None and calls + 1 > lim.max_calls:
            raise BudgetExhausted(
                f"call budget reached ({t.calls}/{lim.max_calls} calls)",
                hint="raise budget.max_calls",
            )
        if lim.max_tokens is not None and tokens + expected_tokens > lim.max_tokens:
            raise BudgetExhausted(
                f"token budget reached ({t.tokens}/{lim.max_tokens} tokens, "
                f"the next call may need {expected_tokens})",
                hint="raise budget.max_tokens",
            )
        if lim.max_cost_usd is not None and cost + expected_cost_usd > lim.max_cost_usd:
            held = cost - t.cost_usd
            raise BudgetExhausted(
                f"cost budget reached (${t.cost_usd:.4f}/${lim.max_cost_usd:.2f}, "
                + (f"${held:.4f} held by the calls in flight, " if held > 0 else "")
                + f"the next call may cost ${expected_cost_usd:.4f})",
                hint="raise budget.max_cost_usd",
            )

    def estimate(self, model: str, request: Request, *, batched: bool = False) -> tuple[int, float]:
        """Expected (tokens, cost in USD) of one attempt of ``request`` on ``model`` (at the batch
        price when it goes through a batch API)."""
        tokens_in, tokens_out = estimate_tokens(request)
        cost = cost_for(model, tokens_in, tokens_out, self.limits.prices, batched=batched)
        if cost is None and (refused := unpriced_cap(self.limits, [model])) is not None:
            raise BudgetExhausted(refused.message, hint=refused.hint)
        return tokens_in + tokens_out, cost or 0.0

    def reserve(self, expected_tokens: int = 0, expected_cost_usd: float = 0.0) -> Hold:
        """:meth:`check`, then hold the attempt's share until :meth:`settle`."""
        self.check(expected_tokens, expected_cost_usd)
        hold = Hold(expected_tokens, expected_cost_usd)
        self._held.append(hold)
        return hold

    def settle(self, hold: Hold) -> None:
        """Release a hold (the attempt is then :meth:`record`-ed or :meth:`record_failure`-d)."""
        self._held.remove(hold)

    def record(self, role: str, model: str, done: Completion) -> float:
        """Account one finished call; returns its cost in USD (``done.cost_usd`` when the backend
        priced it, else from the price table)."""
        prices = self.limits.prices
        list_cost = cost_for(model, done.input_tokens, done.output_tokens, prices)
        cost = done.cost_usd
        if cost is None:
            cost = cost_for(
                model,
                done.input_tokens,
                done.output_tokens,
                prices,
                cache_write=done.cache_write_tokens,
                cache_read=done.cache_read_tokens,
                cache_write_1h=done.cache_write_1h_tokens,
                batched=done.batched,
            )
        unpriced = cost is None
        if cost is None:
            self.unpriced_models.add(model)
            cost = 0.0
        self._add(
            role,
            Usage(
                calls=1,
                unpriced_calls=int(unpriced),
                input_tokens=done.input_tokens,
                output_tokens=done.output_tokens,
                cost_usd=cost,
                cache_write_tokens=done.cache_write_tokens,
                cache_read_tokens=done.cache_read_tokens,
                batched_calls=int(done.batched),
                list_cost_usd=cost if list_cost is None else list_cost,
            ),
        )
        return cost

    def record_failure(self, role: str) -> None:
        """Account an attempt that failed: a call, no tokens, no cost."""
        self.failed_calls[role] = self.failed_calls.get(role, 0) + 1
        self._add(role, Usage(calls=1))

    def _add(self, role: str, more: Usage) -> None:
        self.by_role[role] = self.by_role.get(role, Usage()) + more
