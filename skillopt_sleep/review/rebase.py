"""A staged candidate against the live file as it is now, not as the night read it.

A night builds each candidate from the text it read when it started (kept in the proposal as
``base/<name>``). By the morning the user may have changed the live file. Three cases:

* unchanged: the candidate is written as staged;
* changed only outside the managed block (a line added above or below it): the candidate's block
  is carried onto the current file, so the user's change stays and the rules are added;
* changed inside the block, or the markers are damaged, or the file was deleted: refused, since
  the night's evidence was gathered against rules that are no longer there (an adoption of
  another night in between, a hand edit of the rules); the night must run again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import ProposalError
from ..rules.managed_block import BEGIN, Block, BlockError, find_block, newline_of
from .backup import read_live
from .proposals import Staged


@dataclass(frozen=True)
class Drift:
    """How a live file stands against the text a night built its candidate from.

    ``state`` is "unchanged", "rebased" (``data`` is the candidate carried onto the current
    file) or "refused" (``why`` says why in a few words).
    """

    state: str
    data: bytes | None = None
    why: str = ""


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def drift(
    base: bytes | None, base_sha256: str | None, candidate: bytes, live: bytes | None
) -> Drift:
    """Where ``live`` stands against the night's ``base`` (None: unknown, an older proposal)."""
    if sha(live) == base_sha256:
        return Drift("unchanged", candidate)
    if live is None:
        return Drift("refused", why="was deleted")
    if base is None and base_sha256 is not None:
        return Drift("refused", why="changed")  # a proposal staged without its base text
    try:
        text = rebase(
            (base or b"").decode("utf-8"), candidate.decode("utf-8"), live.decode("utf-8")
        )
    except UnicodeDecodeError:
        return Drift("refused", why="changed and is not UTF-8")
    if text is None:
        why = "was created" if base_sha256 is None else "changed inside its skillopt-sleep block"
        return Drift("refused", why=why)
    return Drift("rebased", text.encode("utf-8"))


def rebase(base: str, candidate: str, live: str) -> str | None:
    """``candidate``'s managed block carried onto ``live``; None unless ``live`` differs from
    ``base`` only outside the block (and ``candidate`` differs from ``base`` only inside it)."""
    try:
        b, c, now = find_block(base), find_block(candidate), find_block(live)
    except BlockError:
        return None
    if c is None:
        return None
    if b is not None:
        if now is None or now.inner != b.inner or (c.head, c.tail) != (b.head, b.tail):
            return None
        return Block(now.head, c.inner, now.tail).join()
    if now is not None or not candidate.startswith(base):
        return None
    block = candidate[len(base) :]
    block = block[block.index(BEGIN) :]
    nl = newline_of(live)
    lead = "" if not live else (nl if live.endswith("\n") else nl + nl)
    return f"{live}{lead}{block}"


def drift_lines(staged: Staged) -> list[str]:
    """One line per live file that changed since the night read it: what ``adopt`` will do."""
    lines = []
    for f in staged.proposal.files:
        try:
            live = read_live(Path(f.live_path))
        except ProposalError as exc:
            lines.append(exc.one_line())
            continue
        state = drift(staged.base(f.name), f.base_sha256, staged.read(f.candidate), live)
        if state.state == "rebased":
            lines.append(
                f"{f.live_path} changed outside the skillopt-sleep block since the night read it: "
                "adopt keeps your change and adds the rules to it"
            )
        elif state.state == "refused":
            lines.append(
                f"{f.live_path} {state.why} since the night read it: adopt will refuse; "
                "run the night again"
            )
    return lines
