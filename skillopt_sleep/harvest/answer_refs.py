"""Whether a later turn corrects what the previous answer *said*: it quotes a piece of it.

"Put every variable name in backticks, like `API_URL`" after an answer that wrote API_URL bare,
"Seulement dans `config/`, pas dans `node_modules/`" after a listing that went into
node_modules/: a turn no rule places, that quotes something the previous answer says, is about
that answer, not a new request. The twin of :mod:`.action_refs` for words. Pure: no IO.
"""

from __future__ import annotations

import re

from .turns import TurnVerdict

_QUOTED = re.compile(
    r"`([^`\n]{3,80})`|(?<!\w)['\"\u201c\u2018]([^'\"\u201d\u2019\n]{3,80})['\"\u201d\u2019]"
)


def quoted_in(text: str, answer: str) -> str | None:
    """The first literal ``text`` quotes that ``answer`` says too (a path with or without its
    trailing slash); None when it quotes none."""
    for match in _QUOTED.finditer(text):
        literal = (match.group(1) or match.group(2)).strip()
        if len(literal.strip("/")) >= 3 and literal.rstrip("/") in answer:
            return literal
    return None


def refine_by_answer(verdict: TurnVerdict, text: str, answer: str) -> TurnVerdict:
    """``verdict``, made a correction when the rules were unsure of the turn and it quotes the
    previous answer; a verdict the rules are sure of stays as it is."""
    if verdict.sure or not answer:
        return verdict
    literal = quoted_in(text, answer)
    if literal is None:
        return verdict
    return TurnVerdict("correction", f"quotes the previous answer ({literal!r})")
