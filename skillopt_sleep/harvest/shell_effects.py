"""What a shell command does to files, as far as its text shows: redirections and a few
well-known programs (``cat`` reads, ``rm`` deletes, ``sed -i`` edits, ``cp``/``mv``/``tee``/``touch``
write). A best effort for the task log: an unknown program leaves no file action. Pure.
"""

from __future__ import annotations

import re
import shlex
from typing import Literal

Effect = tuple[Literal["read", "write", "edit", "delete"], str]

_READERS = frozenset({"cat", "head", "tail", "less", "more", "bat", "nl", "wc", "strings", "xxd"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", "\n"})
_REDIRECTS = {">": "write", ">>": "write", ">|": "write", "&>": "write", "<": "read"}


# ``<<EOF`` or ``<<-'EOF'`` (not a here-string, ``<<<``): the lines up to the delimiter are the
# command's input, not words of it: a key written with ``cat > k.pem <<EOF`` names no file but k.pem.
_HEREDOC = re.compile(r"(?<!<)<<-?[ \t]*([\"']?)([A-Za-z_][\w.\-]*)\1")


def _without_heredocs(command: str) -> str:
    out: list[str] = []
    pos = 0
    while (start := _HEREDOC.search(command, pos)) is not None:
        line_end = command.find("\n", start.end())
        if line_end < 0:
            break
        tag = re.escape(start.group(2))
        end = re.compile(rf"^[ \t]*{tag}[ \t]*$", re.MULTILINE).search(command, line_end + 1)
        if end is None:  # no closing line: a shift in a quoted script ("x << 2"), not a heredoc
            out.append(command[pos : start.end()])
            pos = start.end()
            continue
        out += [command[pos : start.start()], command[start.end() : line_end + 1]]
        pos = end.end()
    return "".join(out) + command[pos:]


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: the command is cut; read what splits cleanly
        return command.split()


def _segments(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            out.append([])
        else:
            out[-1].append(word)
    return [s for s in out if s]


_VALUED = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C"},
    "rg": {"-e", "-g", "-t", "-A", "-B", "-C", "-m"},
}


def _operands(args: list[str], name: str = "") -> list[str]:
    out: list[str] = []
    skip = False
    valued = _VALUED.get(name, set())
    for arg in args:
        if skip:
            skip = False
        elif arg in valued:
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def _program(segment: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(segment) and (
        ("=" in segment[i] and not segment[i].startswith("-"))
        or segment[i] in ("sudo", "env", "command", "exec", "time")
    ):
        i += 1
    if i >= len(segment):
        return "", []
    return segment[i].rsplit("/", 1)[-1], segment[i + 1 :]


def _redirections(segment: list[str]) -> tuple[list[str], list[Effect]]:
    rest: list[str] = []
    found: list[Effect] = []
    i = 0
    while i < len(segment):
        word = segment[i]
        if word in (">&", "<&") and i + 1 < len(segment):  # "2>&1": a descriptor, no file
            target = segment[i + 1]
            if not (target.isdigit() or target == "-" or target == "/dev/null"):
                found.append(("write", target))  # ">& file": both streams to the file
            i += 2
            continue
        if word in _REDIRECTS and i + 1 < len(segment):
            target = segment[i + 1]
            if not target.startswith("&") and target != "/dev/null":
                found.append((_REDIRECTS[word], target))  # type: ignore[arg-type]
            i += 2
            continue
        if word.isdigit() and i + 1 < len(segment) and segment[i + 1] in (*_REDIRECTS, ">&", "<&"):
            i += 1  # "2>" splits as "2" ">"
            continue
        rest.append(word)
        i += 1
    return rest, found


def _program_effects(name: str, args: list[str]) -> list[Effect]:
    ops = _operands(args, name)
    if name in _READERS:
        return [("read", a) for a in ops]
    if name in ("rm", "unlink"):
        return [("delete", a) for a in ops]
    if name in ("sed", "perl") and any(a.startswith(("-i", "-pi")) for a in args):
        return [("edit", ops[-1])] if len(ops) >= 2 else []
    if name == "tee":
        return [("write", a) for a in ops]
    if name == "touch":
        return [("write", a) for a in ops]
    if name == "cp" and len(ops) >= 2:
        return [*[("read", a) for a in ops[:-1]], ("write", ops[-1])]
    if name == "mv" and len(ops) >= 2:
        return [*[("delete", a) for a in ops[:-1]], ("write", ops[-1])]
    if name in ("grep", "rg") and len(ops) >= 2:
        return [("read", a) for a in ops[1:]]
    return []


def shell_effects(command: str) -> list[Effect]:
    """The file effects a command's text shows, in order, each path as written in the command.
    A redacted secret (``[REDACTED:...]``) is never a path."""
    found: list[Effect] = []
    for segment in _segments(_words(_without_heredocs(command))):
        rest, redirected = _redirections(segment)
        name, args = _program(rest)
        if name:
            found.extend(_program_effects(name, args))
        found.extend(redirected)
    seen: set[Effect] = set()
    found = [e for e in found if "[REDACTED" not in e[1]]
    return [e for e in found if not (e in seen or seen.add(e))]  # type: ignore[func-returns-value]
