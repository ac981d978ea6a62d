"""A turn that keeps the previous attempt's command to a scope ("消していいのは `tmp/logs/` の中だけです",
"only what lives in `crates/`") corrects that attempt, however it is worded: the command
confined to the scope it names differs from the one the attempt ran. Pure: no IO.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Action
from .action_refs import ActionLike
from .clauses import _clauses
from .scope import confine, scope
from .turns import TurnVerdict


def confined(text: str, actions: Sequence[ActionLike]) -> str | None:
    """The attempt's first command kept to the scope ``text`` sets with "only" (in any
    language the harvest reads); None when it sets none or the command stays the same."""
    commands = [Action(kind="command", command=a.command) for a in actions if a.kind == "command"]
    where = scope(_clauses(text), commands)
    if not where.only:
        return None
    found = (confine(a.command, where) for a in commands)
    return next((c for c in found if c), None)


def refine_by_scope(verdict: TurnVerdict, text: str, actions: Sequence[ActionLike]) -> TurnVerdict:
    """``verdict``, made a correction when the rules were unsure of the turn and it keeps the
    previous attempt's command to a narrower scope."""
    if verdict.sure or verdict.kind != "new_request" or not actions:
        return verdict
    command = confined(text, actions)
    if command is None:
        return verdict
    return TurnVerdict("correction", f"keeps the attempt's command to a scope ({command!r})")
