"""The night's analyst: one optimizer call a round, over all of the round's cases.

It is an analyst of the family training's are (:mod:`.analysts`): its system prompt is a prompt
file, ``reflect_contrast`` (training's contrastive analyst asks with the same file, so a better
prompt improves both loops), loaded and overridden by :func:`.prompts.load_prompts`; the cases are
rendered by :func:`.reflect.reflection_prompt` and the reply read by :func:`.reflect.parse_edits`,
asked through :class:`.optimizer.Optimizer` (one retry on an unusable reply, never a crash).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..backends.base import Backend
from ..models import Edit
from ..redact import redact
from ..rollouts.replay import Calls
from ..rules.guards import managed_rules
from .optimizer import Optimizer
from .prompts import Prompts, load_prompts
from .reflect import Case, parse_edits, reflection_prompt

NIGHT_ANALYST = "reflect_contrast"
Save = Callable[[str, object], None]  # (artifact name, JSON payload)
Shown = Callable[[str, int, int], None]  # progress: (phase, advance, total)


def night_system(prompts: Prompts) -> str:
    """The night's system prompt: its analyst's prompt file without the file's closing newline
    (the night's requests never carried one)."""
    return prompts[NIGHT_ANALYST].removesuffix("\n")


class OptimizerProposer:
    """Asks the optimizer for edits; a malformed reply is asked once more, an unusable one noted.

    ``files`` are tonight's texts (their managed rules are shown as current rules), ``tried`` the
    edits refused conclusively on earlier nights, ``ignored`` the adopted rules the agent does not
    follow (shown to the optimizer as cases). Notes about unusable replies go to ``notes``.
    ``prompts`` are the analysts' prompt files (the shipped ones by default)."""

    def __init__(
        self,
        optimizer: Backend,
        calls: Calls,
        *,
        files: Mapping[str, str],
        tried: Sequence[Edit],
        max_tokens: int,
        night_index: int,
        notes: list[str],
        save: Save,
        progress: Shown,
        ignored: Sequence[str] = (),
        prompts: Prompts | None = None,
    ) -> None:
        self.client = Optimizer(optimizer, calls, max_tokens=max_tokens, skipped=notes)
        self.files, self.tried, self.ignored = files, list(tried), list(ignored)
        self.system = night_system(prompts or load_prompts())
        self.night_index, self.save, self.progress = night_index, save, progress

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None:
        """The optimizer's edits for ``cases``, each citing the tasks it addresses; None if it failed."""
        rules = list(
            dict.fromkeys(
                r
                for name in ("SKILL.md", "CLAUDE.md", "AGENTS.md")
                for r in managed_rules(self.files.get(name, ""))
            )
        )
        prompt = reflection_prompt(
            cases, [*rules, *accepted], [*self.tried, *refused], self.ignored
        )
        self.progress(f"reflect step {step}", 0, 1)  # one long optimizer call: shown while it runs
        asked = await self.client.asked(
            self.system,
            prompt,
            lambda text: parse_edits(text, cases),
            seed=self.night_index * 100 + step - 1,
            tag="reflect",
            label="",
        )
        if asked is None:
            return None
        self.save(
            f"reflection-{step}.json" if step > 1 else "reflection.json",
            {
                "prompt": asked.prompt,
                "reply": asked.reply,
                "edits": [redacted(e).model_dump() for e in asked.value],
            },
        )
        self.progress(f"reflect step {step}", 1, 1)
        return asked.value


def redacted(edit: Edit) -> Edit:
    """``edit`` with any secret in its texts replaced by a placeholder (for what is written down)."""
    return edit.model_copy(
        update={
            "content": redact(edit.content),
            "rationale": redact(edit.rationale),
            "old": None if edit.old is None else redact(edit.old),
        }
    )
