"""The seeds' analyst reply, read as ours.

skillrl's and SkillOpt's analyst prompts ask for a patch over the whole minibatch::

    {"batch_size": 3, "failure_summary": [...],
     "patch": {"reasoning": "...", "edits": [{"op": "append", "content": "..."},
                                             {"op": "replace", "target": "<old>", "content": "..."},
                                             {"op": "delete", "target": "<old>"}]}}

A user who gives an analyst such a prompt (``--prompts DIR``, skillrl's ``prompt_overrides``, an
adapter's own ``analyst_error.md``) gets the edits of that reply: each one of ours (``append`` and
``insert_after`` add their content, ``replace`` its ``target``, ``delete`` removes it), citing
every case of the minibatch (the patch is the minibatch's), with the patch's reasoning as its
rationale. A reply in our own shape (``{"edits": [{"target": "skill", ...}]}``) is left to our
parser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SEED_OPS = frozenset({"append", "insert_after", "replace", "delete"})
OURS = frozenset({"skill", "memory", "CLAUDE.md", "AGENTS.md"})
MAX_EDITS = 20  # what our reply holds at most
MAX_CHARS = 2000  # an edit's content, at most (a longer one is left out, the others kept)


def _seed_edits(reply: Mapping[str, Any]) -> tuple[list[Any], str] | None:
    """The edits and reasoning of a reply in the seeds' shape (None: it is not in it)."""
    patch = reply.get("patch")
    if isinstance(patch, Mapping) and isinstance(patch.get("edits"), list):
        return list(patch["edits"]), str(patch.get("reasoning") or "")
    edits = reply.get("edits")
    if isinstance(edits, list) and any(_is_seed_edit(e) for e in edits):
        return list(edits), str(reply.get("reasoning") or "")
    return None


def _is_seed_edit(edit: object) -> bool:
    if not isinstance(edit, Mapping):
        return False
    return edit.get("op") in SEED_OPS - {"replace"} or (
        "target" in edit and edit.get("target") not in OURS
    )


def as_our_reply(text: str, cases: int) -> str | None:
    """``text`` (the reply's JSON) rewritten in our shape when it is in the seeds' (None when it
    is not, or is no JSON at all: our parser says why)."""
    try:
        reply = json.loads(text)
    except ValueError:
        return None
    found = _seed_edits(reply) if isinstance(reply, Mapping) else None
    if found is None:
        return None
    edits, reasoning = found
    cites = list(range(1, cases + 1))
    ours = [e for e in (_ours(edit, reasoning, cites) for edit in edits) if e is not None]
    return json.dumps({"edits": ours[:MAX_EDITS]})


def _ours(edit: object, reasoning: str, cites: list[int]) -> dict[str, Any] | None:
    """One seed edit as one of ours (None: an edit with nothing to do, or of an unknown kind)."""
    if not isinstance(edit, Mapping):
        return None
    op = str(edit.get("op") or "append")
    content, anchor = str(edit.get("content") or ""), str(edit.get("target") or "")
    if len(content) > MAX_CHARS or len(anchor) > MAX_CHARS:
        return None
    base = {"target": "skill", "rationale": reasoning, "cases": cites}
    if op in ("append", "insert_after") and content.strip():
        return {**base, "op": "add", "content": content}
    if op == "replace" and content.strip() and anchor.strip():
        return {**base, "op": "replace", "content": content, "old": anchor}
    if op == "delete" and anchor.strip():
        return {**base, "op": "remove", "content": anchor}
    return None
