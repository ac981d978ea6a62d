"""The placement, for every mix of agents and files: each agent in use reads each rule once.

For every set of agents beyond Claude Code alone, every mix of existing ``CLAUDE.md``,
``AGENTS.md`` and ``GEMINI.md`` (with rules an earlier night wrote into both memory files) and
each shape of Gemini's ``context.fileName``, the files laid out by the placement, plus one new
rule in the files it names, give every agent the new rule exactly once, and the old one once to
every agent that read it before (and never twice to any)
(counted through :mod:`skillopt_sleep.rules.readers`, whose rows the real CLIs confirm in
``test_rule_reaches_real_agents.py``).
"""

from __future__ import annotations

import itertools

import pytest

from skillopt_sleep.rules.managed_block import add_rule
from skillopt_sleep.rules.placement import (
    as_proposed,
    import_targets,
    place,
    placed_texts,
    reads_per_agent,
)
from skillopt_sleep.rules.readers import READERS

OLD, NEW = "Use uv, never pip.", "Run pytest -q before you commit."
BLOCK = f"# Notes\n\n<!-- skillopt-sleep:begin -->\n- {OLD}\n<!-- skillopt-sleep:end -->\n"
MIXES = [
    set(agents)
    for n in range(1, len(READERS) + 1)
    for agents in itertools.combinations(READERS, n)
    if set(agents) != {"claude-code"}
]


@pytest.mark.parametrize("gemini", [("GEMINI.md",), ("AGENTS.md", "GEMINI.md"), ("CONTEXT.md",)])
@pytest.mark.parametrize(
    "existing", [(), ("CLAUDE.md",), ("AGENTS.md",), ("CLAUDE.md", "AGENTS.md", "GEMINI.md")]
)
def test_every_agent_in_use_reads_each_rule_once(existing, gemini):
    for agents in MIXES:
        placement = place(agents, existing, gemini_files=gemini)
        live = {name: BLOCK if name in existing else "" for name in placement.names()}
        texts = placed_texts(live, placement)
        for name in placement.rules_in or ():
            texts[name] = add_rule(texts[name], NEW)
        on_disk = {n: t for n, t in texts.items() if t}
        wanted = dict.fromkeys(placement.agents, 1)
        assert reads_per_agent(placement, on_disk, NEW) == wanted, (agents, existing)
        # an older rule: once for every agent that read it before (Copilot read it twice), at
        # most once for the others (Gemini now reads AGENTS.md; Codex never read CLAUDE.md)
        before = reads_per_agent(placement, {n: t for n, t in live.items() if t}, OLD)
        after = reads_per_agent(placement, on_disk, OLD)
        assert all(after[a] == 1 if before[a] else after[a] <= 1 for a in after), (agents, existing)


def test_claude_code_alone_keeps_the_plain_layout():
    assert place(["claude-code", "manual"], ["CLAUDE.md", "AGENTS.md"]).rules_in is None
    assert place([], ["AGENTS.md"]).rules_in is None


@pytest.mark.parametrize("agents", MIXES, ids=lambda a: "+".join(sorted(a)))
def test_a_proposal_creates_no_file_without_a_memory_edit_nor_imports_a_missing_one(agents):
    placement = place(agents, [])
    live = dict.fromkeys(placement.names(), "")
    placed = placed_texts(live, placement)
    nothing = lambda name: False  # noqa: E731 - a project with none of these files
    assert as_proposed(live, placed, placed, nothing) == live  # the skill alone was edited

    home = placement.rules_in[0] if placement.rules_in else "AGENTS.md"
    made = as_proposed(live, placed, dict(placed, **{home: add_rule("", NEW)}), nothing)
    for name, targets in import_targets(made).items():
        assert all(made.get(t, "").strip() for t in targets), (name, targets)
    reads = reads_per_agent(placement, made, NEW)
    assert {a: n for a, n in reads.items() if a not in placement.unreached} == {
        a: 1 for a in placement.agents if a not in placement.unreached
    }
