"""The edit-by-edit gate: exact stratified tests, kinds of task, cross-night e-values, trials."""

from .exact import Stratum, holm, log_e_value, rules_out_gain, stratified_p
from .policy import EvidencePolicy
from .trials import Candidate, Trials

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
