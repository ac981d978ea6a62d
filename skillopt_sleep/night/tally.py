"""The one line a night ends with: how many of its edits were proven, and why the others were not."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import EditEvidence


def tally_line(evidence: Sequence[EditEvidence], adopted: int) -> str:
    """One line: how many edits were proven (to be staged: adoption is the user's), and why the
    others were not."""
    counts: dict[str, int] = {}
    for e in evidence:
        if e.verdict != "accepted":
            counts[e.verdict] = counts.get(e.verdict, 0) + 1
    words = {"over_budget": "over the edit budget"}
    others = ", ".join(
        f"{n} {words.get(v, v.replace('_', ' '))}" for v, n in sorted(counts.items())
    )
    head = f"{adopted} of {len(evidence)} edits proven"
    unconfirmed = sum(e.verdict == "accepted" and bool(e.unconfirmed) for e in evidence)
    if unconfirmed:
        head += (
            f" ({unconfirmed} unconfirmed: held back from auto-adopt, retested when evidence comes)"
        )
    return head + (f"; {others}" if others else "")
