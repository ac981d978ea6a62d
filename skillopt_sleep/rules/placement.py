"""Where a learned rule lands so that every agent a project uses reads it exactly once.

Agents read overlapping files (:mod:`.readers`): Copilot CLI loads ``CLAUDE.md`` and
``AGENTS.md`` together, so a rule written into both reaches it twice, and Gemini CLI reads
neither by default. So when more than Claude Code is in use, a rule lives in one file,
``AGENTS.md``, and the agents that do not read that file get a managed import line:
``.claude/rules/skillopt-sleep.md`` holds ``@../../AGENTS.md`` for Claude Code (a file Copilot
does not read; an import in ``CLAUDE.md`` is followed by Copilot too, which would give it the
rule twice), and ``GEMINI.md`` (or the first file of Gemini's ``context.fileName``) holds
``@AGENTS.md`` unless that setting already names ``AGENTS.md``. Learned rules that earlier
nights wrote into other files an agent reads (``CLAUDE.md``) move into ``AGENTS.md``.

A project that only Claude Code uses (or whose agents are unknown) keeps the plain layout:
rules in its memory files, no new file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .managed_block import (
    BEGIN,
    END,
    Block,
    BlockError,
    add_rule,
    block_lines,
    drop_empty_block,
    find_block,
    mentions_rule,
    newline_of,
    replace_rule,
)
from .readers import (
    GEMINI_DEFAULT,
    READERS,
    Reader,
    import_line,
    imports_of,
    loads,
    reader,
    times_read,
    title,
)

HOME = "AGENTS.md"


@dataclass(frozen=True)
class Placement:
    """The agents in use and where their rules go.

    ``rules_in`` None is the plain layout (every memory file the project has); otherwise a memory
    edit is written into ``rules_in`` only, each ``imports`` pair ``(file, target)`` is a
    managed ``@target`` line in ``file``, and the learned rules of ``cleared`` move to
    ``rules_in``. ``unreached`` agents read no file a rule or an import can reach them in."""

    agents: tuple[str, ...] = ()
    rules_in: tuple[str, ...] | None = None
    imports: tuple[tuple[str, str], ...] = ()
    cleared: tuple[str, ...] = ()
    gemini_files: tuple[str, ...] = GEMINI_DEFAULT
    unreached: tuple[str, ...] = ()  # agents in use that no file of the placement reaches

    def names(self) -> list[str]:
        """Every file this placement writes or reads rules from, ``rules_in`` first."""
        names = [*(self.rules_in or ()), *self.cleared, *(f for f, _ in self.imports)]
        return list(dict.fromkeys(names))


def place(
    agents: Iterable[str],
    existing: Iterable[str],
    *,
    gemini_files: tuple[str, ...] = GEMINI_DEFAULT,
    linked: Iterable[str] = (),
) -> Placement:
    """The placement for ``agents`` (task sources; unknown ones are ignored) in a project whose
    files ``existing`` are; ``linked`` names files that are links to ``AGENTS.md``."""
    wanted = set(agents)
    in_use = tuple(a for a in READERS if a in wanted)
    if not set(in_use) - {"claude-code"}:
        return Placement(in_use, gemini_files=gemini_files)
    same = set(linked)
    rows = {agent: reader(agent, gemini_files) for agent in in_use}
    imports: list[tuple[str, str]] = []
    unreached: list[str] = []
    for agent, row in rows.items():
        if HOME in (*row.files, *row.fallback) or same & set(row.files):
            continue
        into = _import_into(agent, rows)
        if into is None:
            unreached.append(agent)
        else:
            imports.append((into, HOME))
    have = set(existing)
    read = {name for row in rows.values() for name in (*row.files, *row.fallback)}
    ours = {name for row in rows.values() for name in row.ours}
    cleared = tuple(n for n in sorted(read & have) if n != HOME and n not in same | ours)
    return Placement(in_use, (HOME,), tuple(imports), cleared, gemini_files, tuple(unreached))


def _import_into(agent: str, rows: Mapping[str, Reader]) -> str | None:
    """The file of ``agent``'s that can hold ``@AGENTS.md``: one whose imports it follows and
    no other agent in use both reads and follows (it would be given the rules twice); a file of
    ours first. None when there is no such file."""
    row = rows[agent]
    for name in (*row.ours, *(n for n in row.files if n not in row.ours)):
        if name == HOME or not row.follows_in(name):
            continue
        if not any(
            name in (*other.files, *other.fallback) and other.follows_in(name)
            for a, other in rows.items()
            if a != agent
        ):
            return name
    return None


def with_import(text: str, line: str) -> str:
    """``text`` whose managed block holds ``line`` alone (the block added at the end if missing);
    learned rules still in the block are the caller's to move first."""
    nl = newline_of(text)
    block = find_block(text)
    if block is None:
        lead = "" if not text else (nl if text.endswith("\n") else nl + nl)
        return f"{text}{lead}{BEGIN}{nl}{line}{nl}{END}{nl}"
    return Block(block.head, f"{nl}{line}{nl}", block.tail).join()


def placed_texts(texts: Mapping[str, str], placement: Placement) -> dict[str, str]:
    """``texts`` (every file of :meth:`Placement.names`, ``""`` when missing) laid out as the
    placement says: rules moved into ``rules_in``, import lines in place. A file whose managed
    block is damaged is left as it is (the guards refuse to edit it and say why)."""
    out = dict(texts)
    if placement.rules_in is None:
        return out
    home = placement.rules_in[0]
    moved: list[str] = []
    for name in (*placement.cleared, *(f for f, _ in placement.imports)):
        try:
            rules = block_lines(out.get(name, "")) if find_block(out.get(name, "")) else []
        except BlockError:
            continue
        for rule in rules:
            out[name] = replace_rule(out[name], rule, None) or out[name]
            moved.append(rule)
        if rules:  # the block the rules came in goes with them
            out[name] = drop_empty_block(out[name], ended_with_newline=True) or out[name]
    try:
        for rule in moved:
            if not mentions_rule(out.get(home, ""), rule):
                out[home] = add_rule(out.get(home, ""), rule)
        for name, target in placement.imports:
            out[name] = with_import(out.get(name, ""), import_line(name, target))
    except BlockError:
        return dict(texts)
    return out


def reaches(placement: Placement, texts: Mapping[str, str]) -> dict[str, list[str]]:
    """For each file of ``texts``, the agents in use that load it (directly or through an
    import they follow), by their names as shown."""
    out: dict[str, list[str]] = {name: [] for name in texts}
    for agent in placement.agents:
        for name in dict.fromkeys(loads(reader(agent, placement.gemini_files), texts)):
            if name in out:
                out[name].append(title(agent))
    return out


def reads_per_agent(placement: Placement, texts: Mapping[str, str], rule: str) -> dict[str, int]:
    """How many times each agent in use is given ``rule`` by ``texts`` (1 is the aim)."""
    return {
        agent: times_read(reader(agent, placement.gemini_files), texts, rule)
        for agent in placement.agents
    }


def import_targets(texts: Mapping[str, str]) -> dict[str, list[str]]:
    """The files each of ``texts`` imports through managed ``@path`` lines (only those with any)."""
    found = {name: imports_of(name, text) for name, text in texts.items()}
    return {name: targets for name, targets in found.items() if targets}


def as_proposed(
    live: Mapping[str, str],
    placed: Mapping[str, str],
    made: Mapping[str, str],
    exists: Callable[[str], bool],
) -> dict[str, str]:
    """The memory files ``made`` (the ``placed`` layout with the night's edits) as a proposal may
    hold them, ``live`` being their text on disk; ``exists`` says whether a project's file exists.

    The layout comes with a memory edit, or to move learned rules an agent would read twice:
    when no file's ``made`` text differs from its ``placed`` one (a night that edited the skill
    alone) and no learned rule leaves a file, every file is its ``live`` text, so no ``GEMINI.md``
    appears. And a file whose managed ``@path`` lines import a file that neither exists nor is
    written with some text keeps its ``live`` text: no import of a missing file is proposed."""
    out = dict(made)
    edited = any(out.get(name, text) != text for name, text in placed.items())
    if not edited and not any(_rules(live.get(n, "")) - _rules(t) for n, t in placed.items()):
        return {name: live.get(name, text) for name, text in out.items()}
    for name, text in made.items():
        missing = [
            t for t in imports_of(name, text) if not out.get(t, "").strip() and not exists(t)
        ]
        if missing and text != live.get(name, text):
            out[name] = live.get(name, "")
    return out


def _rules(text: str) -> set[str]:
    """The learned rules of ``text``'s managed block (none when it has none or it is damaged)."""
    try:
        return set(block_lines(text)) if find_block(text) else set()
    except BlockError:
        return set()
