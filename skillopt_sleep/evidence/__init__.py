"""The edit-by-edit gate: exact stratified tests, kinds of task, cross-night e-values, trials.

The names below are imported when first used, not with the package: a module of the package
(``kinds``, ``exact``) is imported by commands that only read the log (`status`, `review`), and
``trials`` brings the replays, asyncio and the settings with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .exact import Stratum, holm, log_e_value, rules_out_gain, stratified_p
    from .policy import EvidencePolicy
    from .trials import Candidate, Trials

_HOMES = {
    "Candidate": "trials",
    "EvidencePolicy": "policy",
    "Stratum": "exact",
    "Trials": "trials",
    "holm": "exact",
    "log_e_value": "exact",
    "rules_out_gain": "exact",
    "stratified_p": "exact",
}

__all__ = [
    "Candidate",
    "EvidencePolicy",
    "Stratum",
    "Trials",
    "holm",
    "log_e_value",
    "rules_out_gain",
    "stratified_p",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
