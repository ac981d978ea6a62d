"""Words of code an answer shows that a correction refuses unquoted, in a clause said against
something: "We never tell users to run sudo in our docs" after ``sudo pip install acme-cli``
refuses ``sudo``, whatever the language. Pure: no IO.
"""

from __future__ import annotations

import re

from .clauses import _QUOTED as _QUOTED_ANY
from .clauses import _clauses
from .quoted import ran_segments
from .shell_effects import _program

_COMMAND_LINE = re.compile(
    r"^[ \t]*(?:\$[ \t]*)?([a-z][\w.+-]*(?:[ \t]+\S+)+)[ \t]*$", re.MULTILINE
)
_CODE_SPAN = re.compile(r"`([^`\n]+)`|```[^\n]*\n(.*?)```", re.DOTALL)


def code_words(correction: str, attempt: str) -> list[str]:
    """Words the correction names unquoted in a clause said against something that are words
    of code the answer shows (a command line, a code span or block): "We never tell users to run
    sudo in our docs" after ``sudo pip install acme-cli`` refuses ``sudo``, whatever the
    language; the answer's prose is no code, and of the code only its programs and flags are
    words one refuses so ("not the unit tests" never refuses ``tests``)."""
    code = [m.group(1) for m in _COMMAND_LINE.finditer(attempt)]
    code += [m.group(1) or m.group(2) for m in _CODE_SPAN.finditer(attempt)]
    words: set[str] = set()
    for segment in ran_segments(code):
        args = _program(segment)[1]  # the program and what runs it (sudo, env), and the flags
        words |= {
            *segment[: len(segment) - len(args)],
            *(a.lstrip("-") for a in args if a[:1] == "-"),
        }
    out: list[str] = []
    for clause, negative in _clauses(correction) if code else []:
        bare = _QUOTED_ANY.sub(" ", clause)
        if negative:
            out += [w for w in re.findall(r"[\w.+-]{3,}", bare) if w in words and w not in out]
    return out
