"""The scope a correction sets: the paths it keeps the work in ("only in `src/`", "stick to
lib/") and the ones it keeps the work out of ("we never grep inside node_modules").

A scope correction names no command, yet it says which command the user wanted: the corrected
one, confined to that scope (``grep -rn X node_modules/ src/`` becomes ``grep -rn X src/``). That
confined command is the user's example for the checks the correction yields; and a check on a
command is limited to the scope the user put out of bounds (``never_ran grep`` becomes "never
runs grep on node_modules"), since the user objected to where it ran, not to the tool. Pure.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ..checks.action_judge import glob_match
from ..models import Action
from .clauses import _APPROVED, _QUOTED
from .quoted import commands_of, ran_segments
from .shell_effects import _SEPARATORS, _program, _redirections, _words

# Words that make a clause the only place the work belongs (en, de, fr, es, it, pt, cs, pl, the
# Nordic languages, tr).
_ONLY = re.compile(
    r"(?<![\w-])(?:only|just|solely|exclusively|stick to|stay in|limit\w* to|nur|ausschlie(?:ß|ss)"
    r"lich|seulement|uniquement|solo|sólo|solamente|únicamente|somente|apenas|soltanto"
    r"|jen|jenom|pouze|tylko|wy[lł][aą]cznie|bara|endast|enbart|kun|sadece|yaln[iı]zca"
    r"|только|лише|тільки|\uc624\uc9c1|hanya|chỉ|सिर्फ|केवल|alleen"
    r"|nowhere\s+else|nirgend(?:s|wo)\s+sonst|nulle\s+part\s+ailleurs"
    r"|en\s+ning[uú]n\s+otro\s+(?:lado|sitio)|da\s+nessun'altra\s+parte)(?![\w-])|\ubfd0"
    r"|(?<=[\uac00-\uc9bf\uc9c1-\ud7a3])\ub9cc(?![\uac00-\ud7a3])"  # the particle 만, not 하지만
    r"|\u53ea|\u4ec5|\u3060\u3051|\u306e\u307f",  # Chinese and Japanese, written without spaces
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[\w.~/-]+")


@dataclass(frozen=True)
class Scope:
    """Paths (as the corrected commands spell them, without ``./`` or a trailing slash) the
    user keeps the work in, and the ones the user keeps it out of."""

    inside: tuple[str, ...] = ()
    outside: tuple[str, ...] = ()
    only: bool = False  # said with "only": every other path of the command is out of scope too

    def __bool__(self) -> bool:
        return bool(self.inside or self.outside)


def _norm(path: str) -> str:
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/") or "."


def _operands(corrected: Sequence[Action]) -> set[str]:
    """The paths the corrected attempt worked on: its file actions, and every argument of its
    commands that is written as a path (``node_modules/``, ``.``, ``app.log``)."""
    out = {_norm(a.path) for a in corrected if a.path}
    for segment in ran_segments(commands_of(corrected)):
        name, args = _program(_redirections(segment)[0])  # ": > app.log" keeps its redirection
        for i, arg in enumerate(args):
            if arg.startswith("-"):
                continue
            if "/" in arg or "." in arg or _bare_folder(name, args, i):
                out.add(_norm(arg))
    return out


# Programs whose every plain argument is a path ("find node_modules src", "ls vendor"), and the
# searches whose arguments after the pattern are ("grep -rn TODO node_modules src").
_PATH_ARGS = frozenset(
    [
        "find",
        "ls",
        "du",
        "tree",
        "rm",
        "cp",
        "mv",
        "cat",
        "head",
        "tail",
        "wc",
        "ruff",
        "flake8",
        "pylint",
        "black",
        "isort",
        "mypy",
        "pyright",
        "pytest",
        "eslint",
        "prettier",
        "tsc",
        "chmod",
        "chown",
        "touch",
    ]
)
_SEARCHES = frozenset({"grep", "rg", "ag", "ack", "egrep", "fgrep"})


def _bare_folder(name: str, args: Sequence[str], i: int) -> bool:
    """Whether ``args[i]``, a word with no slash or dot, is a path the command worked on."""
    if not re.fullmatch(r"[\w-]{2,}", args[i]) or args[i - 1 : i] in (["-name"], ["-type"]):
        return False
    if name in _PATH_ARGS:
        return not any(a.startswith("-") for a in args[:i]) or name != "find"
    plain = [j for j, a in enumerate(args) if not a.startswith("-")]
    return name in _SEARCHES and len(plain) > 1 and i != plain[0]


def _paths(clause: str, operands: set[str]) -> list[str]:
    """The paths ``clause`` names: a word with a slash, or one the corrected commands used; a
    flag quoted with its value (`-n auto`) names none."""
    out: list[str] = []
    for token in _TOKEN.findall(re.sub(r"`-[^`\n]*`", " ", clause)):
        token = token.rstrip(".")
        path = _norm(token)
        if len(path) >= 2 and (path in operands or ("/" in token and "//" not in token)):
            out.append(path)
    return out


def scope(clauses: Sequence[tuple[str, bool]], corrected: Sequence[Action]) -> Scope:
    """The scope ``clauses`` (each with whether it is said against something) set for the work
    of ``corrected``: the paths of a clause that says "only", else of every clause said for."""
    operands = _operands(corrected)
    outside: list[str] = []
    only: list[str] = []
    said_for: list[str] = []
    pending = False  # an "only" whose clause names no path reaches the next one ("jen to, co
    for clause, negative in clauses:  # je v `src/`": only what is in src/)
        paths = _paths(clause, operands)
        if negative:
            outside += paths
        elif _ONLY.search(clause) or (pending and paths):
            only += paths
        else:
            said_for += paths
        pending = not negative and not paths and bool(_ONLY.search(clause))
    inside = [p for p in (only or said_for) if p not in outside]
    return Scope(tuple(dict.fromkeys(inside)), tuple(dict.fromkeys(outside)), bool(only))


def kept(clause: str) -> bool:
    """Whether a clause said for a command approves it or keeps the work to it ("`make test` is
    right", "only `alembic upgrade head`"): the attempt's own command, named so, is the example."""
    bare = _QUOTED.sub(" ", clause)
    return bool(_APPROVED.search(bare) or _ONLY.search(bare))


def _within(path: str, names: Sequence[str]) -> bool:
    return any(glob_match(name, path) for name in names)


def _under(path: str, inside: Sequence[str]) -> list[str]:
    """The ``inside`` paths that ``path`` (a directory of the corrected command) contains."""
    if path == ".":
        return list(inside)
    return [i for i in inside if i.startswith(path + "/")]


def _confined_segment(segment: list[str], where: Scope) -> list[str] | None:
    """``segment``'s words kept to ``where``; None when every path it worked on is out of scope."""
    rest, _ = _redirections(segment)
    name, args = _program(rest)
    if not name:
        return rest
    head = rest[: len(rest) - len(args)]
    kept: list[str] = []
    dropped = in_scope = 0
    for i, arg in enumerate(args):
        path = _norm(arg)
        if arg.startswith("-"):
            kept.append(arg)
        elif (where.outside and _within(path, where.outside)) or (
            where.only
            and ("/" in arg or path == "..")
            and not _within(path, where.inside)
            and not _under(path, where.inside)
        ):
            dropped += 1
        elif under := _under(path, where.inside):
            kept += under
            in_scope += 1
        else:
            if where.inside:
                in_scope += _within(path, where.inside)
            else:  # only paths put out of bounds: every other path it worked on is in scope
                in_scope += "/" in arg or "." in arg or _bare_folder(name, args, i)
            kept.append(arg)
    module = name.startswith("python") and args[:1] == ["-m"] and len(args) > 1
    tool, operands = (args[1], args[2:]) if module else (name, args)
    if (
        where.only
        and not dropped
        and tool in _WHOLE_TREE
        and not any(not a.startswith("-") for a in operands)
    ):  # run on the whole tree ("python -m pytest"): kept to the paths the user names
        return [*head, *kept, *where.inside]
    return None if dropped and not in_scope else [*head, *kept]


# Programs that, named no path, work on the whole tree, and only read it.
_WHOLE_TREE = frozenset(
    ["pytest", "ruff", "flake8", "pylint", "mypy", "pyright", "eslint", "ls", "du", "tree"]
)


def confine(command: str, where: Scope) -> str | None:
    """``command`` run only where the user wants it (its redirections left out); None when
    nothing of it changes or nothing of it is left."""
    pieces: list[str] = []
    changed = False
    segment: list[str] = []
    for word in [*_words(command), ";"]:
        if word not in _SEPARATORS:
            segment.append(word)
            continue
        if segment:
            confined = _confined_segment(segment, where)
            changed = changed or confined != _redirections(segment)[0]
            pieces += [shlex.join(confined), word] if confined else []
        segment = []
    return " ".join(pieces[:-1]) if changed and pieces else None


def scoped_phrase(word: str, outside: str, word_first: bool) -> str:
    """A regex for a command that names ``word`` and, in the same segment, ``outside``."""
    a, b = (word, outside) if word_first else (outside, word)
    return rf"(?<![\w-]){re.escape(a)}(?![\w-])[^|;&\n]*(?<![\w-]){re.escape(b)}(?![\w-])"


def limited(word: str, corrected: Sequence[Action], where: Scope) -> str | None:
    """``never_ran word`` limited to the scope the user put out of bounds: the regex of ``word``
    beside the first out-of-scope path it ran with; None when it never ran with one."""
    for segment in ran_segments(commands_of(corrected)):
        lowered = [w.lower() for w in segment]
        if word not in lowered:
            continue
        at = lowered.index(word)
        for i, arg in enumerate(segment):
            path = _norm(arg)
            if i != at and not arg.startswith("-") and _within(path, where.outside):
                name = next(o for o in where.outside if glob_match(o, path))
                return scoped_phrase(segment[at], name, at < i)
    return None
