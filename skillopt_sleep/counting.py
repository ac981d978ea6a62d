"""What a night counts: the calls, tokens and money spent (:class:`Usage`), and the pass counts of
one comparison before and after an edit (:class:`Counts`). Re-exported by :mod:`.models`."""

from __future__ import annotations

from .strict import Strict


class Usage(Strict):
    """Calls, tokens and money spent, for one role or a whole night.

    ``input_tokens`` counts every prompt token; ``cache_write_tokens`` and ``cache_read_tokens``
    are the parts of it written to and read from the provider's prompt cache. ``list_cost_usd``
    is what the same calls cost at the full uncached, synchronous price, so ``saved_usd`` is
    what prompt caching and batches saved. ``unpriced_calls`` are calls of a model with no price:
    their cost is unknown, and ``cost_usd`` counts none of it. Nights stored before these fields
    load with 0.
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    batched_calls: int = 0
    list_cost_usd: float = 0.0
    unpriced_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def saved_usd(self) -> float:
        """What caching and batches saved against the list price (0 for old records)."""
        return max(0.0, self.list_cost_usd - self.cost_usd)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            **{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields}
        )


class Counts(Strict):
    """Pass counts of one comparison: ``before_pass`` of ``before_n`` rollouts, and after."""

    before_pass: int = 0
    before_n: int = 0
    after_pass: int = 0
    after_n: int = 0

    @property
    def before_rate(self) -> float | None:
        return self.before_pass / self.before_n if self.before_n else None

    @property
    def after_rate(self) -> float | None:
        return self.after_pass / self.after_n if self.after_n else None
