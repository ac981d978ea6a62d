"""Whether a later turn corrects what the previous attempt *did*: decided from what the turn refers
to in that attempt's actions, whatever its phrasing or language.

A turn that names a command the attempt ran (its program, a flag, an argument), a file or
directory it read, wrote or deleted, or another tool of the same job (``pnpm`` after ``npm``,
``pytest`` after ``unittest``, ``tail`` after ``cat``), and that does not ask for something new
(it marks a contrast, questions the action, or is a short remark the turn rules cannot place), is
a correction of the request that attempt answered. A new request that happens to name the same
file ("Add a Usage section to README.md") is left as the rules read it. Pure: no IO.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..action_models import is_change
from .beside import beside
from .clauses import sourced
from .quoted import quoted_run
from .shell_effects import _program, _segments, _words
from .turns import TurnVerdict

# Tools that do the same job: naming another one than the attempt used is a correction of it.
FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"pytest", "unittest", "nose", "nose2", "tox", "nox", "jest", "vitest", "mocha"}),
    frozenset({"npm", "pnpm", "yarn", "bun", "npx"}),
    frozenset({"pip", "pip3", "uv", "poetry", "pipenv", "conda", "pdm"}),
    frozenset({"grep", "rg", "ag", "ack", "find", "fd"}),
    frozenset({"cat", "head", "tail", "less", "more", "bat", "grep", "rg"}),
    frozenset({"docker", "podman"}),
    frozenset({"flake8", "ruff", "pylint", "pyflakes", "pycodestyle", "eslint", "biome"}),
    frozenset({"black", "ruff", "yapf", "autopep8", "isort", "prettier", "biome"}),
    frozenset({"mypy", "pyright", "pytype", "pyre"}),
)
# Words of a command too common to say anything about which command a turn means.
_GENERIC = frozenset(
    {
        "python",
        "python3",
        "bash",
        "sh",
        "-m",
        "-c",
        "-lc",
        "echo",
        "printf",
        "cd",
        "env",
        "true",
        "the",
        "a",
        "-",
        "&&",
        "2>&1",
        "it",
        "in",
        "to",
        "and",
        ".",
    }
)
# Grammatical markers that a turn sets itself against what was done: negation, restriction,
# reversal, "instead", "again" (en, de, fr, es). Alone they prove nothing: only with a reference.
CONTRAST = frozenset(
    [
        "not",
        "no",
        "don't",
        "dont",
        "never",
        "without",
        "skip",
        "stop",
        "avoid",
        "leave",
        "stays",
        "keep",
        "only",
        "instead",
        "again",
        "undo",
        "revert",
        "restore",
        "ask",
        "nicht",
        "kein",
        "keine",
        "keinen",
        "nie",
        "niemals",
        "ohne",
        "statt",
        "anstatt",
        "nur",
        "lass",
        "ignorieren",
        "ignoriere",
        "wiederherstellen",
        "rückgängig",
        "zurück",
        "ne",
        "pas",
        "jamais",
        "sans",
        "seulement",
        "lieu",
        "remets",
        "avant",
        "sin",
        "nunca",
        "solo",
        "vez",
        "deja",
    ]
)
_TOKEN = re.compile(r"[\w./@+~-]+(?:'[a-z]+)?|\?")
# A turn that opens by forbidding the kind of thing the attempt just did ("Don't run the linter
# inside X", "Never open the prod config", "No borres nada") corrects it, even when it names
# none of the attempt's words: the verb names the action.
_PROHIBITION = re.compile(
    r"^\W*(?:please\s+)?(?:don'?t|do\s+not|never|stop|nie|niemals|ne|n'|jamais|no|nunca)\s+"
    r"(?P<verb>[\w'-]+)",
    re.IGNORECASE,
)
_ACTION_VERBS: dict[str, frozenset[str]] = {
    "command": frozenset(
        [
            "run",
            "running",
            "execute",
            "call",
            "invoke",
            "lint",
            "test",
            "build",
            "install",
            "restart",
            "start",
            "launch",
            "deploy",
            "lance",
            "lancez",
            "lancer",
            "exécute",
            "exécutez",
            "ejecutes",
            "ejecute",
            "corras",
            "lances",
            "uses",
            "instales",
            "check",
            "type-check",
            "format",
            "search",
            "scan",
        ]
    ),
    "read": frozenset(
        ["read", "open", "cat", "print", "dump", "lis", "ouvre", "leas", "abras", "muestres"]
    ),
    "write": frozenset(
        [
            "edit",
            "touch",
            "change",
            "modify",
            "write",
            "delete",
            "remove",
            "rm",
            "overwrite",
            "commit",
            "push",
            "modifie",
            "supprime",
            "écris",
            "toques",
            "edites",
            "borres",
            "cambies",
        ]
    ),
}
_KIND_OF = {
    "command": "command",
    "read": "read",
    "write": "write",
    "edit": "write",
    "delete": "write",
}


def prohibited(text: str, actions: Sequence[ActionLike]) -> str | None:
    """The verb ``text`` opens by forbidding, when the attempt did an action of its kind."""
    match = _PROHIBITION.match(unicodedata.normalize("NFKC", text).replace("\u2019", "'"))
    if match is None:
        return None
    verb = match.group("verb").lower()
    done = {_KIND_OF.get(a.kind, "") for a in actions}
    return verb if any(verb in _ACTION_VERBS[k] for k in done if k in _ACTION_VERBS) else None


_SHORT_REMARK = 8  # words: a remark this short names what it is about, not a new task
_CODE = re.compile(r"`([^`\n]{3,120})`")
# A command as a shell reads one: words after a program, an assignment before it (`CI=1 npm
# test`) or the no-op builtin in its place (`: > app.log`, which empties the file).
COMMAND_LIKE = re.compile(r"(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:\./)?[a-z0-9][\w.+/-]*|:)(?:\s+\S+)+")


def names_other(text: str, span: str, actions: Sequence[ActionLike]) -> bool:
    """Whether ``text`` quotes in backticks, besides ``span``, something the attempt neither ran
    nor touched: what to do instead, so that a command named as where files come from is only
    the reason ("built by `make apidocs` in CI, so fix `src/client.py`"); with nothing else
    named, that command is the way ("the pins come from `uv pip compile ...`")."""
    done = " ".join(a.command if a.kind == "command" else a.path for a in actions)
    return any(
        (other := m.group(1).strip()) != span and other.strip("/").removeprefix("./") not in done
        for m in _CODE.finditer(text)
    )


def named_command(text: str, actions: Sequence[ActionLike], *, to_run: bool = False) -> str | None:
    """A command ``text`` quotes, in any language, that the attempt (which ran commands) did
    not run as it is: the one to run instead ("C'est `make e2e DB=local`", "así que `redis-cli
    -n 2 FLUSHDB`"). None when the attempt ran none or the turn quotes none. ``to_run``: only
    a command the turn asks to run, not one it names as where files come from (that one still
    tells the turn speaks of the attempt)."""
    ran = [
        segment for a in actions if a.kind == "command" for segment in _segments(_words(a.command))
    ]
    if not ran:
        return None
    for match in _CODE.finditer(text):
        span = match.group(1).strip()
        if to_run and sourced(text[: match.start()]) and names_other(text, span, actions):
            continue  # "built by `make apidocs` in CI": where files come from, not what to run
        words = _words(span)  # a piece of a command the attempt ran (`-n auto`) is no other
        if COMMAND_LIKE.fullmatch(span) and not any(
            seg[i : i + len(words)] == words for seg in ran for i in range(len(seg))
        ):
            return span
    return None


class ActionLike(Protocol):
    """What is read of an action (a harvested ``RawAction`` or a stored ``Action``)."""

    @property
    def kind(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def failed(self) -> bool: ...


@dataclass(frozen=True)
class Vocabulary:
    """What the previous attempt did, as a turn could name it."""

    programs: frozenset[str]  # programs it ran (and ``python -m`` modules)
    words: frozenset[str]  # every specific word of its commands: flags, arguments, sub-commands
    paths: frozenset[str]  # files and directories it read, wrote, edited or deleted
    quiet_paths: frozenset[str]  # of those, the ones it only read or deleted


def _path_names(path: str) -> set[str]:
    parts = [p for p in path.strip("/").split("/") if p not in ("", ".", "..")]
    names = {path.lower().strip("./"), *(p.lower() for p in parts if len(p) >= 2)}
    return {n for n in names if n}


def vocabulary(actions: Sequence[ActionLike]) -> Vocabulary:
    """The names by which a turn may refer to ``actions``."""
    programs: set[str] = set()
    words: set[str] = set()
    paths: set[str] = set()
    quiet: set[str] = set()
    for action in actions:
        if action.kind == "command":
            for segment in _segments(_words(action.command)):
                name, args = _program(segment)
                if name:
                    programs.add(name.lower())
                if name.startswith("python") and len(args) >= 2 and args[0] == "-m":
                    programs.add(args[1].lower())
                words.update(w.lower().strip("'\"") for w in segment)
        elif action.path:
            names = _path_names(action.path)
            paths |= names
            if action.kind in ("read", "delete"):
                quiet |= names
    words = {w for w in words if w not in _GENERIC and len(w) >= 2 and not w.isdigit()}
    return Vocabulary(
        frozenset(programs), frozenset(words | programs), frozenset(paths), frozenset(quiet)
    )


def _tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").lower()
    out = []
    for tok in _TOKEN.findall(text):
        out.append(tok if tok == "?" else tok.rstrip(".:"))
    return out


def _compound_head(tok: str, vocab: Vocabulary) -> str:
    """``tok``, or the name it is a compound of ("dist-ordner", ".env-datei": German joins a
    noun to a name with a hyphen) when only that name is something the attempt touched."""
    head = tok.split("-", 1)[0] if "-" in tok.strip("-") else ""
    known = tok in vocab.words or tok.strip("/") in vocab.paths
    return head if len(head) >= 2 and not known and head.strip("/") in vocab.paths else tok


@dataclass(frozen=True)
class Reference:
    """What a turn names of the previous attempt, and how it speaks of it."""

    named: tuple[str, ...]  # commands, arguments, files, directories of the attempt
    others: tuple[str, ...]  # tools of the same job the attempt did not use
    contrast: bool  # a marker that the turn sets itself against what was done
    quiet: bool  # it names something the attempt only read or deleted
    words: int


def reference(text: str, actions: Sequence[ActionLike]) -> Reference | None:
    """What ``text`` names of ``actions``; None when it names nothing of them."""
    vocab = vocabulary(actions)
    if not (vocab.words or vocab.paths):
        return None
    tokens = _tokens(text)
    named: list[str] = []
    others: list[str] = []
    questioned = False
    for i, tok in enumerate(tokens):
        tok = _compound_head(tok, vocab)
        if tok in vocab.words or tok in vocab.paths or tok.strip("/") in vocab.paths:
            named.append(tok)
            questioned = questioned or (i + 1 < len(tokens) and tokens[i + 1] == "?")
        elif any(tok in fam and vocab.programs & fam for fam in FAMILIES):
            others.append(tok)
    if not named and not others:
        return None
    contrast = questioned or any(t in CONTRAST for t in tokens)
    quiet = any(
        n in vocab.quiet_paths
        or n.strip("/") in vocab.quiet_paths
        or (n in vocab.words and n not in vocab.paths)
        for n in named
    )
    words = sum(1 for t in tokens if t != "?")
    return Reference(
        tuple(dict.fromkeys(named)), tuple(dict.fromkeys(others)), contrast, quiet, words
    )


def refine(verdict: TurnVerdict, text: str, actions: Sequence[ActionLike]) -> TurnVerdict:
    """``verdict`` of the turn rules, made a correction when the turn corrects an action of the
    previous attempt. A correction or praise the rules are sure of stays as it is."""
    if verdict.sure and verdict.kind in ("correction", "praise"):
        return verdict
    verb = None if verdict.sure else prohibited(text, actions)
    if verb is not None:
        return TurnVerdict("correction", f"forbids what the attempt did ({verb!r})")
    command = None if verdict.sure else named_command(text, actions)
    if command is not None:
        return TurnVerdict("correction", f"names a command the attempt did not run ({command!r})")
    commands = [a.command for a in actions if a.kind == "command"]
    only_ran = not any(is_change(a) for a in actions)
    ran = None if verdict.sure else quoted_run(text, commands, only_ran=only_ran)
    if ran is not None:
        return TurnVerdict("correction", f"quotes a command the attempt ran ({ran!r})")
    ref = reference(text, actions)
    if ref is None:
        return verdict
    if ref.others:
        return TurnVerdict(
            "correction", f"names {ref.others[0]!r} where the attempt used another tool"
        )
    named = ref.named[0]
    other = None if verdict.sure else beside(text, (a.path for a in actions))
    if other is not None:
        return TurnVerdict("correction", f"names {other!r} beside a file the attempt used")
    if ref.contrast:
        return TurnVerdict("correction", f"sets itself against what the attempt did ({named!r})")
    if not verdict.sure and ref.quiet and ref.words <= _SHORT_REMARK:
        return TurnVerdict("correction", f"a short remark about what the attempt did ({named!r})")
    return verdict
