"""A command a correction names that the attempt did not run, asked for as run. Pure: no IO."""

from __future__ import annotations

from ..models import Action, Check
from .action_checks import validated_actions
from .action_refs import named_command
from .quoted import phrase, unredirected
from .shell_effects import _words


def named_run(
    said: str, mined: list[Check], acted: list[Action], retry: list[Action] | None
) -> list[Check]:
    """``mined`` with the command the correction names asked for as run, not as words of the
    answer ("C'est `make e2e DB=local`": runs make e2e DB=local), when the attempt did not run
    it (and the retry the user accepted did)."""
    command = named_command(said, acted, to_run=True)
    if command is None:
        return mined
    run = Check(kind="ran", value=phrase(unredirected(_words(command))), case_sensitive=False)
    runs = validated_actions([run], acted, retry)
    kept = [c for c in mined if not (runs and c.kind == "contains" and c.value == command)]
    return [*kept, *(r for r in runs if all(r.value != c.value for c in kept))]
