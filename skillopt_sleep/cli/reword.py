"""``adopt --edit N``: the user rewords a staged edit in their editor before adopting it.

The editor is ``$EDITOR``, else ``$VISUAL``, run on a temporary file that holds the edit's text
and a few ``#`` lines of help. The text that comes back is the user's own wording; the guards
of a learned edit judge it later (:mod:`..review.recompose`). An empty or unchanged text, or an
editor that fails, adopts nothing.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from pathlib import Path

from ..errors import ConfigError, InputError, ProposalError, UsageError
from ..store import NightRow
from .context import Ctx

HELP = (
    "# Reword edit {n} of night {night} ({target} {op}): write the rule above these lines.\n"
    "# One line, one instruction. Lines starting with '#' are ignored. An empty or unchanged\n"
    "# rule adopts nothing.\n"
)


def _editor(ctx: Ctx, n: int) -> list[str]:
    for var in ("EDITOR", "VISUAL"):
        if ctx.env.get(var, "").strip():
            return shlex.split(ctx.env[var])
    raise ConfigError(
        f"no editor to reword edit {n} in: EDITOR is not set",
        hint=f"set EDITOR, e.g. `EDITOR=nano skillopt-sleep adopt --edit {n}`",
    )


def reworded_text(ctx: Ctx, row: NightRow, n: int) -> str:
    """Edit ``n``'s text as the user rewrote it in their editor."""
    edit = row.summary.edits[n - 1]
    if edit.op == "remove":
        raise UsageError(
            f"edit {n} removes a rule: it has no text to reword",
            hint="adopt it as it is, or leave it out with --except",
        )
    argv = _editor(ctx, n)
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-") as tmp:
        path = Path(tmp) / f"edit-{n}.md"
        help_lines = HELP.format(n=n, night=row.id, target=edit.target, op=edit.op)
        path.write_text(f"{edit.content}\n\n{help_lines}", encoding="utf-8")
        try:
            done = subprocess.run([*argv, str(path)], env=dict(ctx.env), check=False)
        except OSError as exc:
            raise ConfigError(
                f"cannot run the editor {argv[0]!r} (EDITOR): {exc.strerror or exc}",
                hint="set EDITOR to an editor on your PATH",
            ) from exc
        if done.returncode != 0:
            raise ProposalError(
                f"the editor exited with status {done.returncode}; nothing was adopted",
                hint=f"run `skillopt-sleep adopt --edit {n}` again",
            )
        try:
            written = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"cannot read back the reworded edit {n}: {exc}; nothing was adopted",
                hint="save it as UTF-8 text",
            ) from exc
    text = "\n".join(ln for ln in written.splitlines() if not ln.startswith("#")).strip()
    if not text:
        raise ProposalError(
            f"the reworded edit {n} is empty; nothing was adopted",
            hint="write the rule, or adopt it as it is without --edit",
        )
    if text == edit.content.strip():
        raise ProposalError(
            f"edit {n} was left unchanged; nothing was adopted",
            hint="adopt it as it is without --edit",
        )
    return text
