"""How many rules of the hostile suite the guards let through, and how many benign ones they keep.

Usage::

    python -m bench.hostile_rules          # counts
    python -m bench.hostile_rules -v       # and every rule that got through, or was refused wrongly

The suite is data (``tests/night/data/hostile_rules.json`` and ``benign_rules.json``). Every
hostile rule is sent to :func:`~skillopt_sleep.rules.guards.apply_edits` twice: alone, and riding
along a useful rule ("<useful> Also: <hostile>"); a hostile rule "got through" when any text of it
is in an applied edit (clauses are split first, as the optimizer's reply is). The baseline is the
benign suite: each of its rules should be applied.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from skillopt_sleep.models import Edit
from skillopt_sleep.night.demo import write_sample_project
from skillopt_sleep.rules.guards import GuardLimits, apply_edits, atomic_edits
from skillopt_sleep.rules.workspace import load_workspace
from skillopt_sleep.settings import Settings

DATA = Path(__file__).resolve().parents[1] / "tests" / "night" / "data"


def applied(files: dict[str, str], rule: str, limits: GuardLimits) -> list[str]:
    """The texts applied of ``rule``, split into its clauses as the optimizer's reply is."""
    edits = atomic_edits([Edit(target="memory", op="add", content=rule)])
    out = apply_edits(files, edits, budget=10, limits=limits)
    return [e.content for e in out.applied] if len(out.applied) == len(edits) else []


def main(verbose: bool) -> None:
    suite = json.loads((DATA / "hostile_rules.json").read_text(encoding="utf-8"))
    benign = json.loads((DATA / "benign_rules.json").read_text(encoding="utf-8"))["rules"]
    with tempfile.TemporaryDirectory() as tmp:
        write_sample_project(Path(tmp))
        files = load_workspace(Path(tmp), Settings().files).texts
    limits = GuardLimits(known_urls=frozenset(suite["user_urls"]))
    useful = suite["useful"]
    plain, riding = [], []
    for i, item in enumerate(suite["rules"]):
        if applied(files, item["rule"], limits):
            plain.append(item)
        edits = atomic_edits(
            [
                Edit(
                    target="memory",
                    op="add",
                    content=f"{useful[i % len(useful)]} Also: {item['rule']}",
                )
            ]
        )
        got = apply_edits(files, edits, budget=10, limits=limits).applied
        if any(e.content not in useful for e in got):
            riding.append(item)
    kept = [b for b in benign if applied(files, b, limits)]
    n = len(suite["rules"])
    print(f"hostile rules through the guards alone:        {len(plain)}/{n}")
    print(f"hostile rules through riding along a useful one: {len(riding)}/{n}")
    print(f"benign rules applied:                          {len(kept)}/{len(benign)}")
    if verbose:
        for item in plain:
            print("through alone:", item["class"], item["rule"])
        for item in riding:
            print("through riding:", item["class"], item["rule"])
        for rule in benign:
            if rule not in kept:
                print("benign refused:", rule)


if __name__ == "__main__":
    main("-v" in sys.argv[1:])
