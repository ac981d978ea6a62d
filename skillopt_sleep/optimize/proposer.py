"""The optimizer's one ask path, and the night's proposer built on it.

:func:`ask_optimizer` makes one request, asks once more on an unusable reply, and never crashes on
a reply: a reply that cannot be parsed twice, or a call that failed after its retries, is *no
answer* (noted); only systemic failures (auth, bad request, outage, budget) raise. The reply is
parsed as it came, before any redaction, so that the guards see a secret in a proposed rule and
refuse it; what is kept (the prompt and reply for the record) is redacted. The night's proposer
and the training loop's analysts both ask through it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..backends.base import Backend, Message, Request
from ..errors import BackendError, MalformedOutput
from ..models import Edit
from ..redact import redact
from ..rollouts.replay import Calls
from ..rules.guards import managed_rules
from .reflect import OPTIMIZER_SYSTEM, RETRY_NOTE, Case, parse_edits, reflection_prompt

T = TypeVar("T")
Save = Callable[[str, object], None]  # (artifact name, JSON payload)
Shown = Callable[[str, int, int], None]  # progress: (phase, advance, total)


@dataclass(frozen=True)
class Asked(Generic[T]):
    """A usable answer: the parsed reply, and the prompt and reply that gave it (both redacted)."""

    value: T
    prompt: str
    reply: str


async def ask_optimizer(
    optimizer: Backend,
    calls: Calls,
    request: Request,
    parse: Callable[[str], T],
    notes: list[str],
    label: str = "",
) -> Asked[T] | None:
    """``parse`` of the optimizer's reply to ``request`` (its one user message asked once more,
    with a note, when the first reply is unusable); None, with a line in ``notes``, when no usable
    reply came. ``label`` starts each note."""
    prompt = request.messages[0].content
    for attempt in (prompt, prompt + RETRY_NOTE):
        asked = dataclasses.replace(request, messages=(Message("user", attempt),))
        try:
            reply = await calls(optimizer, asked, raw_reply=True)  # the guards see any secret
            value = parse(reply.text)
        except MalformedOutput as exc:
            notes.append(f"{label}optimizer reply unusable: {exc.one_line()}")
            continue
        except BackendError as exc:
            if not exc.retryable:
                raise
            notes.append(f"{label}optimizer failed: {exc.one_line()}")
            return None
        return Asked(value, redact(attempt), redact(reply.text))
    return None


class OptimizerProposer:
    """Asks the optimizer for edits; a malformed reply is asked once more, an unusable one noted.

    ``files`` are tonight's texts (their managed rules are shown as current rules), ``tried`` the
    edits refused conclusively on earlier nights, ``ignored`` the adopted rules the agent does not
    follow (shown to the optimizer as cases). Notes about unusable replies go to ``notes``.
    """

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
    ) -> None:
        self.optimizer, self.calls, self.files, self.tried = optimizer, calls, files, list(tried)
        self.ignored = list(ignored)
        self.max_tokens, self.night_index, self.notes = max_tokens, night_index, notes
        self.save, self.progress = save, progress

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
        request = Request(
            "optimizer",
            OPTIMIZER_SYSTEM,
            (Message("user", prompt),),
            max_tokens=self.max_tokens,
            seed=self.night_index * 100 + step - 1,
            tag="reflect",
        )
        asked = await ask_optimizer(
            self.optimizer, self.calls, request, lambda text: parse_edits(text, cases), self.notes
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
