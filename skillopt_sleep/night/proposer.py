"""The night's proposer: the optimizer model, asked for edits that address a round's cases."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..backends.base import Backend, Message, Request
from ..errors import BackendError, MalformedOutput
from ..models import Edit
from ..redact import redact
from .guards import managed_rules
from .reflect import OPTIMIZER_SYSTEM, RETRY_NOTE, Case, parse_edits, reflection_prompt
from .replay import Calls

Save = Callable[[str, object], None]  # (artifact name, JSON payload)
Shown = Callable[[str, int, int], None]  # progress: (phase, advance, total)


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
        for attempt in (prompt, prompt + RETRY_NOTE):
            request = Request(
                "optimizer",
                OPTIMIZER_SYSTEM,
                (Message("user", attempt),),
                max_tokens=self.max_tokens,
                seed=self.night_index * 100 + step - 1,
                tag="reflect",
            )
            try:
                reply = await self.calls(
                    self.optimizer, request, raw_reply=True
                )  # the guards see any secret
                edits = parse_edits(reply.text, cases)
            except MalformedOutput as exc:
                self.notes.append(f"optimizer reply unusable: {exc.one_line()}")
                continue
            except BackendError as exc:
                if not exc.retryable:
                    raise
                self.notes.append(f"optimizer failed: {exc.one_line()}")
                return None
            self.save(
                f"reflection-{step}.json" if step > 1 else "reflection.json",
                {
                    "prompt": redact(attempt),
                    "reply": redact(reply.text),
                    "edits": [_redacted(e).model_dump() for e in edits],
                },
            )
            self.progress(f"reflect step {step}", 1, 1)
            return edits
        return None


def _redacted(edit: Edit) -> Edit:
    return edit.model_copy(
        update={
            "content": redact(edit.content),
            "rationale": redact(edit.rationale),
            "old": None if edit.old is None else redact(edit.old),
        }
    )
