"""A correction split over two messages: the first only says the attempt is wrong ("No, not
like that.", "Way too long."), the second what to do. Pure: no IO.
"""

from __future__ import annotations

from collections.abc import Sequence

from .action_refs import ActionLike, reference
from .held_text import held_text_checks
from .turns import TurnVerdict

CONTINUES = "continues the correction before it"


def continued(
    before: TurnVerdict | None,
    verdict: TurnVerdict,
    text: str,
    previous: Sequence[ActionLike],
    corrected: str = "",
) -> TurnVerdict:
    """The second half of a split correction: a turn the rules are unsure of, right after a sure
    correction, that names the attempt's actions, quotes what to do ("We restart it with
    `docker compose restart web`."), or holds the answer the first half corrected
    (``corrected``) to something it breaks ("Fifty characters is the cap")."""
    if before is None or before.kind != "correction" or not before.sure or verdict.sure:
        return verdict
    if verdict.kind != "new_request":
        return verdict
    named = reference(text, previous) is not None or "`" in text
    if not named and not (corrected and held_text_checks(text, corrected, previous)):
        return verdict
    return TurnVerdict("correction", CONTINUES)
