"""The managed block: the only part of a user's file a night may write.

A memory file (``CLAUDE.md``, ``AGENTS.md``) or a ``SKILL.md`` holds at most one block::

    <!-- skillopt-sleep:begin -->
    - one learned rule per line
    <!-- skillopt-sleep:end -->

Everything before the begin marker and after the end marker is the user's and is never
rewritten: these functions splice text between the markers and leave every other byte alone
(line endings, a missing final newline, blank-line runs, code fences). A file without a block
gets one appended at its end, after a separating blank line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN = "<!-- skillopt-sleep:begin -->"
END = "<!-- skillopt-sleep:end -->"
SKILL_HEADING = "## Learned rules"


class BlockError(ValueError):
    """The file's markers are damaged (one without the other, twice, or out of order)."""


@dataclass(frozen=True)
class Block:
    """A file cut around its managed block: ``head + BEGIN + inner + END + tail``."""

    head: str
    inner: str
    tail: str

    def join(self) -> str:
        return f"{self.head}{BEGIN}{self.inner}{END}{self.tail}"


def newline_of(text: str) -> str:
    """The file's line ending: CRLF files get CRLF lines."""
    return "\r\n" if "\r\n" in text else "\n"


def find_block(text: str) -> Block | None:
    """The file's block, None if it has none; :class:`BlockError` if the markers are damaged."""
    begins, ends = text.count(BEGIN), text.count(END)
    if begins == 0 and ends == 0:
        return None
    if begins != 1 or ends != 1:
        raise BlockError(
            f"its skillopt-sleep block is damaged ({begins} begin and {ends} end markers)"
        )
    head, rest = text.split(BEGIN, 1)
    if END not in rest:
        raise BlockError("its skillopt-sleep end marker comes before the begin marker")
    inner, tail = rest.split(END, 1)
    return Block(head, inner, tail)


def block_lines(text: str) -> list[str]:
    """The rules (``- `` lines) inside the block, without the bullet; [] without a block."""
    try:
        block = find_block(text)
    except BlockError:
        return []
    if block is None:
        return []
    return [
        ln.strip()[2:].strip() for ln in block.inner.splitlines() if ln.strip().startswith("- ")
    ]


def add_rule(text: str, rule: str, *, heading: str | None = None) -> str:
    """``text`` with ``rule`` appended to its block (the block created at the end if needed)."""
    nl = newline_of(text)
    block = find_block(text)
    if block is None:
        lead = "" if not text else (nl if text.endswith("\n") else nl + nl)
        top = f"{nl}{heading}{nl}{nl}" if heading else nl
        return f"{text}{lead}{BEGIN}{top}- {rule}{nl}{END}{nl}"
    inner = block.inner
    if not inner:
        inner = nl
    elif not inner.endswith("\n"):
        inner += nl
    return Block(block.head, f"{inner}- {rule}{nl}", block.tail).join()


def replace_rule(text: str, old: str, new: str | None) -> str | None:
    """``text`` with the block's rule ``old`` replaced by ``new`` (removed when None).

    None when the block holds no such rule. Rules match ignoring case and spacing.
    """
    block = find_block(text)
    if block is None:
        return None
    lines = block.inner.splitlines(keepends=True)
    for i, line in enumerate(lines):
        body = line.strip()
        if body.startswith("- ") and same_rule(body[2:], old):
            if new is None:
                del lines[i]
            else:
                ending = line[len(line.rstrip("\r\n")) :]
                indent = line[: len(line) - len(line.lstrip())]
                lines[i] = f"{indent}- {new}{ending}"
            return Block(block.head, "".join(lines), block.tail).join()
    return None


_LEADING_BREAK = re.compile(r"\A\r?\n")
_TRAILING_BREAK = re.compile(r"\r?\n\Z")


def drop_empty_block(text: str, ended_with_newline: bool) -> str | None:
    """``text`` without its managed block, laid out as before :func:`add_rule` appended it, when
    the block holds nothing but blank lines and the learned-rules heading; None otherwise.

    ``ended_with_newline`` says how the file ended before the block was added (a file without a
    final newline got a blank line more before the block)."""
    block = find_block(text)
    if block is None or block.inner.strip() not in ("", SKILL_HEADING):
        return None
    tail = _LEADING_BREAK.sub("", block.tail, count=1)
    head = block.head
    for _ in range(1 if ended_with_newline else 2):
        head = _TRAILING_BREAK.sub("", head, count=1)
    return head + tail


def normal_rule(rule: str) -> str:
    """A rule's identity: bullet, case, spacing and a final full stop do not count."""
    text = rule.strip()
    if text[:2] in ("- ", "* "):
        text = text[2:]
    return " ".join(text.lower().split()).rstrip(".")


def same_rule(a: str, b: str) -> bool:
    return normal_rule(a) == normal_rule(b)


def mentions_rule(text: str, rule: str) -> bool:
    """Whether any line of ``text`` (hand-written or managed) already states ``rule``."""
    wanted = normal_rule(rule)
    return any(normal_rule(line) == wanted for line in text.splitlines() if line.strip())


# -- SKILL.md frontmatter ---------------------------------------------------------------------


def frontmatter(text: str) -> str | None:
    """The frontmatter of a ``SKILL.md`` (from the first ``---`` line to the closing one), or
    None if it is missing, unclosed or lacks a non-empty ``name:`` and ``description:``."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            keys = _keys(lines[1:i])
            if keys.get("name") and keys.get("description"):
                return "".join(lines[: i + 1])
            return None
    return None


def skill_name(text: str) -> str | None:
    """The ``name:`` of a ``SKILL.md``'s frontmatter, or None when it has no valid frontmatter."""
    head = frontmatter(text)
    return None if head is None else _keys(head.splitlines()[1:-1]).get("name")


def _keys(lines: list[str]) -> dict[str, str]:
    keys: dict[str, str] = {}
    for line in lines:
        if line[:1].isspace() or ":" not in line:
            continue  # a continuation or a list item of a YAML value
        key, _, value = line.partition(":")
        keys[key.strip()] = value.strip().strip("\"'")
    return keys


def new_skill(name: str = "project") -> str:
    """A minimal valid ``SKILL.md`` for a project that has none yet."""
    return (
        f"---\nname: {name}\n"
        "description: Conventions learned from this project's past sessions. "
        "Use for every task in this project.\n---\n"
    )
