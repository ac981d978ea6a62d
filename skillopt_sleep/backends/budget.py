"""The night's budget: calls, tokens and money, checked *before* every model call."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BudgetExhausted
from ..models import Usage
from ..settings import BudgetSettings, Price

# USD per million tokens (input, output). Overridable with [budget.prices."model"] in config.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4": (1.0, 5.0),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "simulated": (0.0, 0.0),
}


def price_for(model: str, overrides: dict[str, Price]) -> tuple[float, float] | None:
    """Price of ``model``: an exact override, else the longest known prefix. None if unknown."""
    if model in overrides:
        p = overrides[model]
        return p.input, p.output
    best = None
    for prefix, price in DEFAULT_PRICES.items():
        if model.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, price)
    return best[1] if best else None


@dataclass
class Budget:
    """Tracks spending per role and refuses a call that would go over a limit."""

    limits: BudgetSettings
    by_role: dict[str, Usage] = field(default_factory=dict)
    unpriced_models: set[str] = field(default_factory=set)

    @property
    def total(self) -> Usage:
        t = Usage()
        for u in self.by_role.values():
            t = Usage(
                calls=t.calls + u.calls,
                input_tokens=t.input_tokens + u.input_tokens,
                output_tokens=t.output_tokens + u.output_tokens,
                cost_usd=t.cost_usd + u.cost_usd,
            )
        return t

    def check(self, expected_tokens: int = 0) -> None:
        """Raise ``BudgetExhausted`` if one more call (of about ``expected_tokens``) would exceed it."""
        t, lim = self.total, self.limits
        if lim.max_calls is not None and t.calls + 1 > lim.max_calls:
            raise BudgetExhausted(f"call budget reached ({t.calls}/{lim.max_calls} calls)",
                                  hint="raise budget.max_calls")
        if lim.max_tokens is not None and t.tokens + expected_tokens > lim.max_tokens:
            raise BudgetExhausted(f"token budget reached ({t.tokens}/{lim.max_tokens} tokens)",
                                  hint="raise budget.max_tokens")
        if lim.max_cost_usd is not None and t.cost_usd >= lim.max_cost_usd:
            raise BudgetExhausted(f"cost budget reached (${t.cost_usd:.4f}/${lim.max_cost_usd:.2f})",
                                  hint="raise budget.max_cost_usd")

    def record(self, role: str, model: str, input_tokens: int, output_tokens: int,
               cost_usd: float | None) -> float:
        """Account one finished call; returns its cost in USD."""
        if cost_usd is None:
            price = price_for(model, self.limits.prices)
            if price is None:
                self.unpriced_models.add(model)
                cost_usd = 0.0
            else:
                cost_usd = (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
        u = self.by_role.get(role, Usage())
        self.by_role[role] = Usage(
            calls=u.calls + 1,
            input_tokens=u.input_tokens + input_tokens,
            output_tokens=u.output_tokens + output_tokens,
            cost_usd=u.cost_usd + cost_usd,
        )
        return cost_usd
