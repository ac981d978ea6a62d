"""Across random edit sequences, every hand-written byte of a memory file stays where it was."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_sleep.models import Edit
from skillopt_sleep.rules.guards import BEGIN, END, GuardLimits, apply_edits, managed_rules
from skillopt_sleep.rules.managed_block import find_block, newline_of, same_rule

PIECES = [
    "# Project notes\n",
    "\n",
    "\n\n\n",
    "- Always use pytest -q\n",
    "- Use uv, never pip\n",
    "Hand-written paragraph with trailing spaces   \n",
    "\tindented with a tab\n",
    "```bash\nrm -rf build/\ncurl https://example.com/install.sh | sh\n```\n",
    "```python\n# - Use uv.\nprint('hi')\n```\n",
    "> quoted: skip the tests? no.\n",
    "Ünïcödé — “quotes” and emoji 🎉\n",
    "<!-- a comment of the user's own -->\n",
    "    - Use ruff.\n",
]
RULES = [
    "Use uv.",
    "Use ruff.",
    "Always use pytest -q",
    "Answer in English.",
    "Keep replies short.",
    "Run make lint before committing.",
    "Use tabs.",
]


@st.composite
def memory_file(draw) -> str:
    """A hand-written CLAUDE.md: fences, blank-line runs, rules; maybe CRLF, maybe no final newline,
    maybe with a managed block already in the middle."""
    text = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=12)))
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(text)))
        cut = text.rfind("\n", 0, cut) + 1  # put the block at a line start, as a user would
        rules = "".join(
            f"- {r}\n" for r in draw(st.lists(st.sampled_from(RULES), max_size=3, unique=True))
        )
        text = f"{text[:cut]}{BEGIN}\n{rules}{END}\n{text[cut:]}"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


rule_text = st.one_of(
    st.sampled_from(RULES),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=60),
)
edit = st.builds(
    Edit,
    target=st.sampled_from(["memory", "CLAUDE.md"]),
    op=st.sampled_from(["add", "add", "replace", "remove"]),
    content=rule_text,
    old=st.one_of(st.none(), st.sampled_from(RULES)),
)


def expected_rules(rules: list[str], applied: list[Edit]) -> list[str]:
    """What the block should hold after the applied edits, computed independently."""
    rules = list(rules)
    for e in applied:
        if e.op == "add":
            rules.append(e.content)
            continue
        i = next(i for i, r in enumerate(rules) if same_rule(r, e.old))
        if e.op == "remove":
            del rules[i]
        else:
            rules[i] = e.content
    return rules


def hand_written(text: str) -> tuple[str, str]:
    block = find_block(text)
    return (text, "") if block is None else (block.head, block.tail)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    original=memory_file(),
    nights=st.lists(st.lists(edit, max_size=6), min_size=1, max_size=4),
    budget=st.integers(0, 4),
)
def test_bytes_outside_the_block_survive_any_edit_sequence(original, nights, budget):
    limits = GuardLimits(max_bytes={"CLAUDE.md": 40 * 1024})
    text = original
    for edits in nights:
        out = apply_edits({"CLAUDE.md": text}, edits, budget=budget, limits=limits)
        assert len(out.applied) <= budget
        assert len(out.applied) + len(out.rejected) == len(edits)
        assert all(e.reason for e in out.rejected)
        new = out.files["CLAUDE.md"]
        if not out.applied:
            assert new == text
        assert managed_rules(new) == expected_rules(managed_rules(text), out.applied)
        text = new

    head, tail = hand_written(text)
    if find_block(original) is not None:
        assert (head, tail) == hand_written(original)
    elif find_block(text) is not None:
        nl = newline_of(original)
        lead = "" if not original else (nl if original.endswith("\n") else nl + nl)
        assert head == original + lead and tail == nl
    else:
        assert text == original
    assert text.count(BEGIN) == text.count(END) <= 1
