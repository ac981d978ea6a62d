"""Where a turn says the previous answer again its own way: a clause with three of the answer's
words in a row, as the answer has them ("Release 5.2 ships on 14 May." after "Release 5.2 ships
soon."). Such a clause is the user's own version of the answer, in any language: it speaks of
that answer, and a number in it is what the answer should say, not a ceiling on it. Pure.
"""

from __future__ import annotations

import re

# three words: two would match "of the", "in the" in any sentence about an answer
_RUN = 3
_CLAUSE_END = re.compile(r"[,;:.!?\u3002\u060c]+(?:\s+|\Z)|\n")
_CODE = re.compile(r"`[^`]*`")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in re.findall(r"\w+", text)]


def restatements(text: str, answer: str) -> list[str]:
    """The clauses of ``text`` (code spans aside) that say ``answer`` again their own way: three
    of its words in a row, and not the answer's own words alone."""
    said = _words(answer)
    runs = {tuple(said[i : i + _RUN]) for i in range(len(said) - _RUN + 1)}
    out: list[str] = []
    for clause in _CLAUSE_END.split(_CODE.sub(" ", text)):
        words = _words(clause)
        if any(tuple(words[i : i + _RUN]) in runs for i in range(len(words) - _RUN + 1)) and (
            " ".join(words) not in " ".join(said)
        ):
            out.append(clause.strip())
    return out
