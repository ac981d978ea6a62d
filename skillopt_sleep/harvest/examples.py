"""The user's own example: what a correction names to do instead, as a synthetic attempt.

"Use `python3 -m pytest -x`, not unittest" shows the command the user wants run; "only ever
clear `.cache/`" the directory they want cleared; "grep it for ERROR" the tool they want used on
the file the attempt read. A mined check that fails on that example contradicts the correction
it came from: :func:`hold` narrows it (``never_ran python3`` becomes ``never_ran python3 -m
unittest``) or drops it, and marks every check it held with the example it passes on. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..action_models import is_change
from ..checks.action_judge import Effects, action_check, glob_match
from ..checks.judge import rule_check
from ..models import Action, Check
from .action_refs import COMMAND_LIKE, FAMILIES, names_other
from .clauses import _QUOTED, _clauses, sourced
from .flag_values import BARE_FLAG, as_passed, flagged, revalued, unsubsumed
from .quoted import commands_of, led, offered, piped, ran_as_is, ran_segments
from .quoted import phrase as phrase  # where the benchmarks and older callers import it
from .scope import Scope, confine, kept, limited, scope
from .shell_effects import _operands, _program, _words, shell_effects
from .stand_ins import left_to_the_request, shared

_BARE_PATH = re.compile(
    r"(?<![\w`'\"/.-])((?:\.?[\w-]+/)+(?:[\w.-]+)?|\.?[\w-]+\.[a-z]{1,5})(?![\w/])"
)
_DELETE = re.compile(
    r"\b(?:clear|clean|delete|remove|rm|wipe|purge|drop|l[oö]sch\w*|entfern\w*|leer\w*|supprim\w*"
    r"|vide\w*|borr\w*|elimin\w*)\b",
    re.IGNORECASE,
)
_READ = re.compile(
    r"\b(?:read|open|look|check|inspect|view|lies|öffne|schau|lire|ouvre|lee|abre)\b", re.IGNORECASE
)
_TOOLS = frozenset().union(*FAMILIES) | {"python", "python3", "git", "make", "cargo", "go", "ls"}
_SEARCHERS = frozenset({"grep", "rg", "ag", "ack"})
_EXAMPLE_CHARS = 300


@dataclass(frozen=True)
class UserExample:
    """What the user asked for instead, as an attempt: commands run, files touched, text said."""

    commands: tuple[str, ...]
    actions: tuple[Action, ...]
    texts: tuple[str, ...]
    written: tuple[str, ...] = ()  # the texts as the user wrote them: `API_URL` keeps its backticks
    where: Scope = field(default_factory=Scope)  # the paths it keeps the work in, and out of
    objected: tuple[str, ...] = ()  # commands the correction quotes as the attempt ran them
    spared: tuple[str, ...] = ()  # paths it says never to delete ("ne supprime jamais X")

    @property
    def label(self) -> str:
        """The example as ``tasks show`` names it."""
        parts = [f"`{c}`" for c in self.commands]
        parts += [f"{a.kind}s {a.path}" for a in self.actions if a.kind != "command" and not a.tool]
        parts += [f"'{t}'" for t in self.texts if t not in self.commands and not _is_path(t)]
        return "; ".join(parts)[:_EXAMPLE_CHARS]


def _is_path(span: str) -> bool:
    return " " not in span and bool(re.search(r"/|^\.[\w-]|^[\w-]+\.[a-z]{1,5}$", span))


def _is_command(span: str, programs: frozenset[str]) -> bool:
    first = span.split(" ", 1)[0].lower()
    return first in _TOOLS or first in programs


def _programs(actions: Sequence[Action]) -> frozenset[str]:
    return frozenset(_program(s)[0].lower() for s in ran_segments(commands_of(actions)))


def _command_actions(command: str) -> list[Action]:
    """A command and what it does to files; a search reads the files it names."""
    out = [Action(kind="command", command=command)]
    out += [Action(kind=k, path=p, tool="shell") for k, p in shell_effects(command)]
    for segment in ran_segments([command]):
        name, args = _program(segment)
        if name in _SEARCHERS:
            operands = _operands(args, name)
            paths = operands[0 if "-e" in args else 1 :]
            out += [Action(kind="read", path=p, tool="shell") for p in paths]
    return out


def _path_kind(clause: str, corrected: Sequence[Action]) -> str:
    if _DELETE.search(clause):
        return "delete"
    if _READ.search(clause):
        return "read"
    kinds = [a.kind for a in corrected if is_change(a)]
    return kinds[0] if kinds else "read"


def _tool_command(tool: str, clause: str, corrected: Sequence[Action]) -> str:
    """``tool`` run where the attempt ran its own (``grep it for ERROR``: a search of the file
    the attempt read)."""
    if tool not in _SEARCHERS:
        return tool
    paths = [a.path for a in corrected if a.kind == "read" and a.path]
    what = re.search(r"\b(?:for|nach|pour|por)\s+([^\s,;.!?]+)", clause, re.IGNORECASE)
    return " ".join([tool, "-e", what.group(1) if what else "...", *dict.fromkeys(paths)])


def _named(clause: str, feedback: str, corrected: Sequence[Action]) -> list[tuple[str, bool]]:
    """The spans a clause said for something quotes, each with whether it is a command: one of a
    known tool or of a program the attempt ran, or any command line in backticks, whatever its
    program (``truncate -s 0 logs/app.log``). A command named as where something comes from
    ("built by `make apidocs` in CI") is neither the example nor any text of it, when the
    correction names something else to do."""
    programs = _programs(corrected)
    out: list[tuple[str, bool]] = []
    for match in _QUOTED.finditer(clause):
        span = (match.group(1) or match.group(2)).strip()
        ticked = match.group(0).startswith("`") and COMMAND_LIKE.fullmatch(span) is not None
        if ticked and sourced(clause[: match.start()]) and names_other(feedback, span, corrected):
            continue
        out.append((span, ticked or _is_command(span, programs)))
    return out


def user_example(feedback: str, corrected: Sequence[Action]) -> UserExample | None:
    """The example ``feedback`` gives of what to do instead; None when it names none."""
    programs = _programs(corrected)
    commands: list[str] = []
    actions: list[Action] = []
    texts: list[str] = []
    written: list[str] = []
    objected: list[str] = []
    for clause, negative in _clauses(feedback):
        for span, is_command in _named(clause, feedback, corrected):
            if as_passed(span, corrected) or (negative and is_command and led(span, corrected)):
                objected.append(span)
    for clause, negative in _clauses(feedback):
        if negative:
            commands += offered(clause, corrected, programs)
            commands += revalued(clause, objected, corrected)
            continue
        written += [m.group(0) for m in _QUOTED.finditer(clause) if m.group(0).startswith("`")]
        for span, is_command in _named(clause, feedback, corrected):
            if _is_path(span):
                path = span.strip("/").removeprefix("./")
                actions.append(Action(kind=_path_kind(clause, corrected), path=path))  # type: ignore[arg-type]
            elif is_command and ran_as_is(span, corrected) and not kept(clause):
                objected.append(span)  # the very command corrected: what the user objects to
                continue
            elif is_command:
                commands.append(span)
            elif as_passed(span, corrected):
                continue  # the attempt's own flag value, quoted back: objected above
            elif (with_flag := flagged(span, corrected)) is not None:
                commands.append(with_flag)
            texts.append(span)
        bare = _QUOTED.sub(" ", clause)
        for match in _BARE_PATH.finditer(bare):
            path = re.sub(r"/\.+$", "", match.group(1)).strip("/").removeprefix("./")
            actions.append(Action(kind=_path_kind(clause, corrected), path=path))  # type: ignore[arg-type]
        for match in BARE_FLAG.finditer(bare):
            if (with_flag := flagged(match.group(1).rstrip("."), corrected)) is not None:
                commands.append(with_flag)
        for word in re.findall(r"[\w.-]+", bare.lower()):
            if word not in programs and any(word in fam and programs & fam for fam in FAMILIES):
                commands.append(_tool_command(word, clause, corrected))
    where = scope(_clauses(feedback), corrected)
    if not commands and where:  # a scope alone: the corrected commands, kept to it
        found = (confine(a.command, where) for a in corrected if a.kind == "command")
        commands += [c for c in found if c]
    if not (commands or actions or texts or objected):
        return None
    for command in dict.fromkeys(commands):  # run as the attempt ran its own: piped the same
        actions = [*_command_actions(piped(command, corrected, feedback)), *actions]
    return UserExample(
        tuple(dict.fromkeys(commands)),
        tuple(actions),
        tuple(texts),
        tuple(written),
        where,
        tuple(objected),
        _spared(feedback),
    )


def _spared(feedback: str) -> tuple[str, ...]:
    """The paths a clause said against deleting names ("never delete `package-lock.json`")."""
    out: list[str] = []
    for clause, negative in _clauses(feedback):
        if negative and _DELETE.search(_QUOTED.sub(" ", clause)):
            quoted = (a or b for a, b in _QUOTED.findall(clause))
            out += [q.strip().strip("/").removeprefix("./") for q in quoted if _is_path(q.strip())]
            out += [m.group(1).strip("/") for m in _BARE_PATH.finditer(_QUOTED.sub(" ", clause))]
    return tuple(dict.fromkeys(out))


# -- holding a check against the example ---------------------------------------------------------

_WORD = re.compile(r"^\(\?<!\[\\w-\]\)(.+)\(\?!\[\\w-\]\)$")


def _narrowed(check: Check, example: UserExample, corrected: Sequence[Action]) -> Check | None:
    """``never_ran word`` narrowed to the fewest words around it of the corrected command that
    the user's example does not run, those before it first (``make build``: the program that ran
    it, not a redirection after it); None when no such words exist. The step the example stands
    in for is narrowed first: of the attempt's steps holding the word, the one that opens most
    like a command of the example (``git push --tags`` beside the user's ``git push origin
    v2.4.0``), not another step of the same program the request asked for (``git tag v2.4.0``)."""
    name = _word_of(check)
    if name is None:
        return None
    steps = [s for s in ran_segments(commands_of(corrected)) if name in (w.lower() for w in s)]
    instead = ran_segments(example.commands)
    for segment in sorted(steps, key=lambda s: -max((shared(s, e) for e in instead), default=0)):
        lowered = [w.lower() for w in segment]
        i = lowered.index(name)
        for n in range(1, len(segment)):
            for words in (segment[max(0, i - n) : i + 1], segment[i : i + n + 1]):
                narrow = check.model_copy(update={"value": phrase(words)})
                if len(words) > n and _passes(narrow, example):
                    return narrow
    return None


def _refused_value(check: Check, example: UserExample) -> Check | None:
    """``never_ran`` of the attempt's flag value the user quoted back (`--workers=auto`), in the
    place of a word of that command their own example runs too: only the value is refused."""
    for span in example.objected:
        if not _FLAGLIKE.match(span):
            continue
        narrow = check.model_copy(update={"value": phrase(_words(span))})
        if _passes(narrow, example):
            return narrow
    return None


_FLAGLIKE = re.compile(r"--?[A-Za-z]")


def _word_of(check: Check) -> str | None:
    """The one word a ``never_ran`` check forbids, as the command spells it (lower-cased)."""
    word = _WORD.match(str(check.value))
    return re.sub(r"\\(.)", r"\1", word.group(1)).lower() if word else None


def _to_objected(check: Check, example: UserExample) -> Check:
    """``never_ran word`` made the command the user quoted as the one they object to, when that
    command holds the word ("`git add -A` adds the logs too": never runs git add -A, not git)."""
    name = _word_of(check) if check.kind == "never_ran" else None
    for command in example.objected:
        words = _words(command)
        if name is not None and name in (w.lower() for w in words):
            return check.model_copy(update={"value": phrase(words)})
    return check


def _where_asked(check: Check, example: UserExample) -> bool:
    """Whether ``check`` forbids a path the user asked the work to stay in ("stick to src/"
    after ``grep ... node_modules/ src/`` never makes ``src/`` a command never to run)."""
    name = _word_of(check) if check.kind == "never_ran" else None
    return name is not None and any(glob_match(i, name.strip("/")) for i in example.where.inside)


def _scoped(check: Check, example: UserExample, corrected: Sequence[Action]) -> Check | None:
    """``check`` limited to the scope the user put out of bounds ("never grep inside
    node_modules": never runs grep on node_modules; never deletes data/raw, not all of data);
    None when the scope cannot limit it."""
    outside = example.where.outside
    name = _word_of(check) if check.kind == "never_ran" else None
    narrow: Check | None = None
    if name is not None and outside:
        value = limited(name, corrected, example.where)
        narrow = check.model_copy(update={"value": value}) if value else None
    elif check.kind in ("untouched", "never_read"):
        inner = [p for p in outside if p != check.value and glob_match(str(check.value), p)]
        narrow = check.model_copy(update={"value": inner[0]}) if inner else None
    if narrow is None or _passes(narrow, example) is False:
        return None
    failed = action_check(narrow, Effects(actions=tuple(corrected)))
    return narrow if failed is not None and not failed[0] else None


def _passes(check: Check, example: UserExample) -> bool | None:
    """Whether the example passes ``check``; None when the example says nothing it could judge."""
    kind = check.kind
    if kind in ("never_ran", "untouched", "never_read", "ran", "changed"):
        if kind == "ran" and not example.commands:
            return None
        if kind == "changed" and not any(  # a path it only reads is one it leaves unchanged
            is_change(a) or (a.path and glob_match(str(check.value), a.path))
            for a in example.actions
        ):
            return None
        result = action_check(check, Effects(actions=example.actions))
        return None if result is None else result[0]
    if kind in ("contains", "not_contains") or (
        kind == "regex" and str(check.value).startswith(r"(?s)\A(?!")
    ):
        if not example.texts:
            return None
        return rule_check(check, "\n".join(example.texts + example.written))[0]
    return None


def _rewritten(check: Check, example: UserExample) -> bool:
    """Whether the user's example may change a path ``check`` wants left alone that the user
    only said never to delete: a command whose text shows no effect on files may write any
    (``npm install --package-lock-only`` rewrites the lockfile), and never deleting a file is
    not never touching it."""
    if check.kind != "untouched" or not example.commands:
        return False
    told = all(shell_effects(c) for c in example.commands)
    return not told and any(glob_match(str(check.value), p) for p in example.spared)


def _undeleted(check: Check, example: UserExample, corrected: Sequence[Action]) -> Check | None:
    """``untouched path`` narrowed to never running the attempt's command that deleted it
    (``rm package-lock.json``); None when no command of the attempt shows that deletion."""
    for segment in ran_segments(commands_of(corrected)):
        gone = [p for k, p in shell_effects(" ".join(segment)) if k == "delete"]
        if any(glob_match(str(check.value), p.strip("/").removeprefix("./")) for p in gone):
            narrow = Check(kind="never_ran", value=phrase(segment), case_sensitive=False)
            return narrow if _passes(narrow, example) else None
    return None


def hold(
    checks: Sequence[Check], example: UserExample | None, corrected: Sequence[Action]
) -> list[Check]:
    """The checks that pass on the user's example (narrowed where they can be), each marked
    with it; then any two that ask for opposite things are both dropped."""
    if example is None:
        return consistent(checks)
    kept: list[Check] = []
    label = example.label
    objected: set[str] = set()  # values made the words the user objects to (`-n auto`)
    narrowed_to: set[str] = set()
    steps, instead = ran_segments(commands_of(corrected)), ran_segments(example.commands)
    for check in checks:
        before, check = check.value, _to_objected(check, example)
        if check.value != before:
            objected.add(str(check.value))
        verdict = False if _rewritten(check, example) else _passes(check, example)
        if verdict and check.kind == "never_ran" and left_to_the_request(check, steps, instead):
            continue  # a step the user's example did not replace: `git tag` before their push
        if verdict is False:
            if _where_asked(check, example):
                continue
            narrowed = _scoped(check, example, corrected)
            if narrowed is None and check.kind == "never_ran":
                narrowed = _refused_value(check, example) or _narrowed(check, example, corrected)
            if narrowed is None and check.kind == "untouched":
                narrowed = _undeleted(check, example, corrected)
            if narrowed is None:
                continue
            check = narrowed
            narrowed_to.add(str(check.value))
        if verdict is not None and label:
            check = check.model_copy(update={"held_against": label})
        if all((c.kind, c.value) != (check.kind, check.value) for c in kept):
            kept.append(check)
    return consistent(unsubsumed(kept, narrowed_to, objected, corrected))


_OPPOSITE = {
    "ran": "never_ran",
    "contains": "not_contains",
    "changed": "untouched",
    "file_contains": "file_not_contains",
}


def consistent(checks: Sequence[Check]) -> list[Check]:
    """``checks`` without any pair that asks for and against the same thing (in any case, when
    either of the two reads it in any case)."""
    pairs = set(_OPPOSITE.items()) | {(v, k) for k, v in _OPPOSITE.items()}
    clash = {
        (a.kind, str(a.value), a.path)
        for a in checks
        for b in checks
        if (a.kind, b.kind) in pairs and _same(a, b) and a.path == b.path
    }
    return [c for c in checks if (c.kind, str(c.value), c.path) not in clash]


def _same(a: Check, b: Check) -> bool:
    if a.value == b.value:
        return True
    either = not (a.case_sensitive and b.case_sensitive)
    return either and str(a.value).casefold() == str(b.value).casefold()
