"""The helpers SkillOpt's ``EnvAdapter`` gives every adapter, under their names: the hidden
reference of an item (``build_reference_text``, ``get_reference_metadata``,
``attach_reference_context``), a small outcome-balanced sample of a batch
(``select_representative_items``) and the analysts' prompts (``get_error_minibatch_prompt``,
``get_success_minibatch_prompt``), so an adapter that calls or overrides them runs unchanged.

The analysts' prompts are looked up as SkillOpt looks them up: the adapter's own prompt file
first (``prompts/NAME.md`` beside the adapter's module: for SkillOpt's own adapters, the
``skillopt/envs/<env>/prompts/`` directory they ship), then the generic one (ours: the failure and
the success analyst's shipped prompts). A run uses an adapter's own analyst prompts, in the seeds'
reply format or ours (:meth:`~skillopt_sleep.envs.seed_envs.AdapterEnv.analyst_prompts`).
"""

from __future__ import annotations

import inspect
import random
from pathlib import Path
from typing import Any

from ..optimize.prompts import shipped

GENERIC = {"analyst_error": "reflect_failure", "analyst_success": "reflect_success"}
# the prompt names each SkillOpt ``skill_update_mode`` looks for first
_MODES = {
    "_full_rewrite": ("full_rewrite", "full_rewrite_minibatch", "minibatch_full_rewrite",
                      "skill_rewrite_minibatch"),
    "_rewrite": ("rewrite", "rewrite_from_suggestions", "suggestions", "rewrite_suggestions"),
}  # fmt: skip
PREVIEW = 400


def _by_id(items: list[dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    return {
        str(i.get("id")): i for i in items or () if isinstance(i, dict) and i.get("id") is not None
    }


class AdapterHelpers:
    """What SkillOpt's ``EnvAdapter`` implements for its subclasses (mixed into ours)."""

    _cfg: dict[str, Any]

    def build_reference_text(self, item: dict[str, Any]) -> str:
        """The item's hidden reference for reflection (its ``reference_text``), if any."""
        return str(item.get("reference_text") or "").strip()

    def get_reference_metadata(self, item: dict[str, Any]) -> dict[str, Any]:
        """Which fields hold the item's reference, and its first 400 characters."""
        text = self.build_reference_text(item)
        if not text:
            return {"fields": [], "preview": ""}
        return {"fields": ["reference_text"], "preview": text[:PREVIEW]}

    def attach_reference_context(
        self, results: list[dict[str, Any]], items: list[dict[str, Any]] | None
    ) -> list[dict[str, Any]]:
        """Copies of ``results``, each with its item's reference text (where it has one)."""
        if not results or not items:
            return list(results)
        by_id = _by_id(items)
        out = []
        for row in results:
            merged = dict(row)
            item = by_id.get(str(row.get("id")))
            text = self.build_reference_text(item) if item else ""
            if text:
                merged["reference_text"] = text
            out.append(merged)
        return out

    def select_representative_items(
        self,
        results: list[dict[str, Any]],
        items: list[dict[str, Any]] | None,
        *,
        n_failures: int,
        n_successes: int,
        seed: int | None = None,
    ) -> list[dict[str, Any]]:
        """Up to ``n_failures`` failed items then ``n_successes`` passed ones (by ``hard``), in a
        seeded order, one of each task type first, then any; an item is picked once."""
        by_id = _by_id(items)
        if not by_id:
            return []
        pairs = [(r, by_id[str(r.get("id"))]) for r in results if str(r.get("id")) in by_id]
        failed = [pair for pair in pairs if not pair[0].get("hard")]
        passed = [pair for pair in pairs if pair[0].get("hard")]
        rng = random.Random(seed)
        picked = _pick(failed, n_failures, rng)
        taken = {str(i["id"]) for i in picked}
        return picked + [i for i in _pick(passed, n_successes, rng) if str(i["id"]) not in taken]

    # -- the analysts' prompts: the adapter's own file, then the generic one -------------------

    @property
    def _env_name(self) -> str:
        """The environment's directory name, as SkillOpt derives it (``skillopt.envs.NAME.*``)."""
        parts = type(self).__module__.split(".")
        return parts[-2] if len(parts) >= 3 and parts[-3] == "envs" else ""

    def _load_env_prompt(self, name: str) -> str | None:
        """``prompts/NAME.md`` beside the adapter's module, else the generic prompt of NAME
        (None: neither)."""
        try:
            here = Path(inspect.getfile(type(self))).parent
        except (TypeError, OSError):  # a class made at run time has no file
            here = None
        own = here / "prompts" / f"{name}.md" if here is not None else None
        if own is not None and own.is_file():
            return own.read_text(encoding="utf-8")
        return shipped(GENERIC[name]) if name in GENERIC else None

    def _minibatch_prompt(self, kind: str) -> str | None:
        mode = str(getattr(self, "_cfg", {}).get("skill_update_mode", "patch")).strip().lower()
        for suffix, modes in _MODES.items():
            if mode in modes:
                prompt = self._load_env_prompt(f"analyst_{kind}{suffix}")
                if prompt is not None:
                    return prompt
        return self._load_env_prompt(f"analyst_{kind}")

    def get_error_minibatch_prompt(self) -> str | None:
        """The failure analyst's system prompt (``analyst_error``)."""
        return self._minibatch_prompt("error")

    def get_success_minibatch_prompt(self) -> str | None:
        """The success analyst's system prompt (``analyst_success``)."""
        return self._minibatch_prompt("success")


def _pick(
    pool: list[tuple[dict[str, Any], dict[str, Any]]], quota: int, rng: random.Random
) -> list[dict[str, Any]]:
    """Up to ``quota`` items of ``pool`` shuffled: a new task type each first, then any."""
    if quota <= 0 or not pool:
        return []
    order = list(pool)
    rng.shuffle(order)
    picked: dict[str, dict[str, Any]] = {}
    types: set[str] = set()
    for row, item in order:
        kind = str(
            row.get("task_type") or item.get("task_type") or item.get("subtype") or "unknown"
        )
        if kind not in types and str(item["id"]) not in picked:
            picked[str(item["id"])] = item
            types.add(kind)
            if len(picked) >= quota:
                return list(picked.values())
    for _, item in order:
        picked.setdefault(str(item["id"]), item)
        if len(picked) >= quota:
            break
    return list(picked.values())
