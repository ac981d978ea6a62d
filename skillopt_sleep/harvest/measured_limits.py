"""A limit read from evidence, in any language: a number in a correction that the corrected
answer exceeds on exactly one measurable property names that property's ceiling.

The unit words of a correction ("characters", "자", "karakter", "κουκκίδες") are not read: the
answer itself says what the number counts. A number the answer already carries is one it speaks
of, not a ceiling; a number two properties exceed is a guess, and no ceiling is read from it (one
line's characters and the whole answer's are one property on a one-line answer, and so are its
lines and its bullets when every line is a bullet). Nor is a number in a clause that says the
answer again the user's way (:mod:`.restated`) and would not fit under it: "Release 5.2 ships on
14 May." after "Release 5.2 ships soon." dates the release; nor a piece of a date, a time or an
id ("v1 shuts down on 2027-03-31" names no ceiling of 31). Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from .number_words import numbers_in_words
from .restated import restatements

Measure = Literal["chars", "line_chars", "lines", "bullets", "words"]

# a whole number, not a piece of a compound token: a version, an identifier or a larger number
# ("5.2", "py3", "1,000"), nor digits joined to a word or to more digits by "-", "/" or ":" (a
# date "2027-03-31", a time "22:00", a ratio "3/4", an id "PAY-311"): the token is one value,
# and its pieces are no count. A number joined to a unit after it ("80-char") is still one.
_NUMBER = re.compile(r"(?<![\w.,#])(?<!\w[-/:])\d{1,5}(?![.,]?\d)(?![-/:]\d)")
_CODE = re.compile(r"`[^`]*`")
_BULLET = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+\S")
# an answer over its ceiling by a quarter or more ("set it to 10" after an 11-character answer
# is a value, not a limit) and at most three times (a ceiling that cuts away two thirds of the
# answer is one no reader would mean: "3" after a five-bullet answer counts bullets, not words)
_OVER = 1.25
_FAR = 3


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


_MEASURES: dict[Measure, Callable[[str], int]] = {
    "chars": len,
    "line_chars": lambda text: max((len(line) for line in text.splitlines()), default=0),
    "lines": lambda text: len(_lines(text)),
    "bullets": lambda text: sum(bool(_BULLET.match(line)) for line in _lines(text)),
    "words": lambda text: len(re.findall(r"\w+", text)),
}


def measure(text: str, what: Measure) -> int:
    """``text``'s size on the property ``what``."""
    return _MEASURES[what](text)


def _numbers(correction: str, answer: str) -> list[int]:
    said = {int(n) for n in _NUMBER.findall(answer)}
    found = _said_numbers(_CODE.sub(" ", correction))
    return list(dict.fromkeys(n for n in found if n > 0 and n not in said))


def _said_numbers(text: str) -> list[int]:
    return [*(int(n) for n in _NUMBER.findall(text)), *numbers_in_words(text)]


def _content(correction: str, answer: str, what: Measure, n: int) -> bool:
    """Whether ``n`` is part of the user's own version of the answer (a date it should say),
    which that version does not fit."""
    return any(
        n in _said_numbers(clause) and measure(clause, what) > n
        for clause in restatements(correction, answer)
    )


def _exceeded(answer: str, n: int) -> list[Measure]:
    over: list[Measure] = [w for w in _MEASURES if n * _OVER <= measure(answer, w) <= n * _FAR]
    if measure(answer, "lines") <= 1 and "line_chars" in over:
        over.remove("line_chars")  # one line: its characters are the answer's
    if "bullets" in over and measure(answer, "bullets") == measure(answer, "lines"):
        over.remove("lines")  # every line a bullet: a ceiling on bullets is the milder reading
    return over


def measured_limits(correction: str, answer: str) -> list[tuple[Measure, int]]:
    """The ceilings ``correction`` names on ``answer``, as (property, n): each number the answer
    exceeds on exactly one property. Empty where no number fits one property alone."""
    found: list[tuple[Measure, int]] = []
    for n in _numbers(correction, answer):
        over = _exceeded(answer, n)
        if len(over) == 1 and not _content(correction, answer, over[0], n):
            found.append((over[0], n))
    return found


def cut(text: str, what: Measure, n: int) -> str:
    """``text`` brought within ``n`` on ``what``: the shortest change a user would make."""
    if what == "lines":
        return "\n".join(_lines(text)[:n])
    if what == "bullets":
        kept: list[str] = []
        for line in _lines(text):
            if not _BULLET.match(line) or sum(bool(_BULLET.match(k)) for k in kept) < n:
                kept.append(line)
        return "\n".join(kept)
    if what == "words":
        words = list(re.finditer(r"\w+", text))
        return text[: words[n - 1].end()] if len(words) > n else text
    if what == "line_chars":
        return "\n".join(_shortened(line, n) for line in text.splitlines())
    return _shortened(text, n)


def _shortened(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    head = text[:n]
    return head.rsplit(" ", 1)[0].rstrip(" ,;:-") if " " in head else head


def limit_check(what: Measure, n: int) -> tuple[str, str | int, bool]:
    """The check of a ceiling ``n`` on ``what``, as (kind, value, case sensitive)."""
    if what == "chars":
        return "max_chars", n, True
    if what == "line_chars":
        return "regex", rf"\A(?:.{{0,{n}}}\n)*.{{0,{n}}}\Z", True
    if what == "lines":
        return "regex", rf"\A\s*(?:.*\S.*\n\s*){{0,{n - 1}}}(?:.*\S.*)?\s*\Z", True
    if what == "bullets":
        return "regex", rf"(?sm)\A(?!(?:.*?{_BULLET.pattern}){{{n + 1}}})", True
    return "regex", rf"(?s)\A\W*(?:\w+\W+){{0,{n - 1}}}\w*\W*\Z", True
