"""A command as the user quotes it back: its words without redirections, and whether it is,
word for word, a command the corrected attempt ran. Quoted back in a correction ("`git add -A`
adds the debug logs too"), such a command is what the user objects to, never their example of
what to do instead. Pure.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from ..models import Action
from .clauses import _NEGATIVE, _QUOTED
from .shell_effects import _program, _segments, _words


def unredirected(words: list[str]) -> list[str]:
    """A command's words up to its first redirection (``2>&1`` is no part of the example),
    unless the redirection is all the command does (``: > app.log`` empties the file)."""
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word[:1] in "<>" or (word.isdigit() and nxt[:1] and nxt[:1] in "<>"):  # "-n 2" ends
            return words[: i + 2] if words[:i] in ([], [":"]) and word == ">" else words[:i]
    return words


def ran_segments(commands: Sequence[str]) -> list[list[str]]:
    """Each segment of ``commands`` that runs a program, as its words, redirections aside: the
    one reading of what an attempt (or the user's example, or a command line an answer shows)
    ran that every module shares.

    Two readings walk the command lines themselves, because they read what was typed rather
    than what ran: :func:`.action_refs.vocabulary` (a turn may name a redirection's target, as
    in "not into `results.txt`") and :func:`.action_refs.named_command` (a command quoted back
    with its redirection, `pytest -q > out.txt`, is the attempt's own, not one to run
    instead)."""
    found = (unredirected(s) for c in commands for s in _segments(_words(c)))
    return [s for s in found if _program(s)[0]]


def commands_of(actions: Sequence[Action]) -> list[str]:
    """The command lines ``actions`` ran."""
    return [a.command for a in actions if a.kind == "command"]


def phrase(words: Sequence[str]) -> str:
    """A regex matching ``words`` as whole words, in order, spaces between them; a glob the
    shell would expand is matched quoted or not (``-name '*.yml'`` as written and as run)."""
    return r"(?<![\w-])" + r"\s+".join(map(_word, words)) + r"(?![\w-])"


def _word(word: str) -> str:
    glob = re.search(r"[*?\[]", word) and not re.search(r"['\"]", word)
    return f"['\"]?{re.escape(word)}['\"]?" if glob else re.escape(word)


def ran_as_is(span: str, corrected: Sequence[Action]) -> bool:
    """Whether ``span`` is, word for word, a command of the corrected attempt (its redirections
    aside): quoted back in a correction, it is what the user objects to, never the example."""
    return _words(span) in ran_segments(commands_of(corrected))


def led(span: str, corrected: Sequence[Action]) -> bool:
    """Whether a command said against is how a command of the attempt opens, word for word
    ("never a bare `kubectl apply`" after ``kubectl apply -f k8s/``): what the user objects to."""
    said = [w.lower() for w in _words(span)]
    return len(said) > 1 and any(
        [w.lower() for w in segment[: len(said)]] == said
        for segment in ran_segments(commands_of(corrected))
    )


def offered(clause: str, corrected: Sequence[Action], programs: frozenset[str]) -> list[str]:
    """The commands a clause said against something still offers: a variant of a program the
    attempt ran that no negation governs ("no merge commits: `git pull --rebase origin main`",
    "`npm install --package-lock-only` ... sans tout réinstaller") is the alternative, not what
    is refused ("Never `git push --force`" is); a command of another program (``make codegen``
    as where files come from) is not an instruction."""
    out: list[str] = []
    for match in _QUOTED.finditer(clause):
        span = (match.group(1) or match.group(2)).strip()
        before = clause[: match.start()].rsplit(":", 1)[-1]  # a colon ends a negation's reach
        if (
            span.split(" ", 1)[0].lower() in programs
            and " " in span
            and not _NEGATIVE.search(_QUOTED.sub(" ", before))
            and not ran_as_is(span, corrected)
        ):
            out.append(span)
    return out


def _tail(command: str) -> list[str]:
    words = _words(command)
    return words[words.index("|") + 1 :] if "|" in words else []


def piped(command: str, corrected: Sequence[Action], said: str) -> str:
    """``command`` with the pipe's tail of the attempt's command it replaces (the same program,
    else the attempt's last piped one): ``| tail -20`` is how the agent shows a command's
    output, part of the command line the user's example runs, unless the correction ``said``
    names the tail's program ("never pipe it into tail")."""
    if "|" in _words(command):
        return command
    ran = [a.command for a in corrected if a.kind == "command" and _tail(a.command)]
    head = _program(_words(command))[0]
    same = [c for c in ran if _program(_words(c))[0] == head]
    tail = _tail((same or ran or [""])[-1])
    named = {_program(s)[0] for s in _segments(tail)}
    words = _QUOTED.sub(lambda m: " " if " " in m.group(0) else m.group(0), said)  # not its own
    if not tail or any(
        re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", words, re.I) for n in named
    ):
        return command
    return f"{command} | {shlex.join(tail)}"


def quoted_run(text: str, commands: Sequence[str], *, only_ran: bool = False) -> str | None:
    """A command ``text`` quotes word for word as the attempt ran it (its redirections aside):
    a turn quoting what was just done speaks of it, in any language; so does a flag quoted alone
    (`--depth 1`) after an attempt that ran commands and changed no file (``only_ran``)."""
    ran = ran_segments(commands)
    for match in re.finditer(r"`([^`\n]{2,120})`", text):
        span = match.group(1).strip()
        if (len(_words(span)) > 1 and _words(span) in ran) or (
            only_ran and ran and _FLAG_ALONE.fullmatch(span)
        ):
            return span
    return None


_FLAG_ALONE = re.compile(r"--?[A-Za-z][\w.-]*(?:[ =][^\s-]\S*)?")
