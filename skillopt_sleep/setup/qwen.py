"""Qwen Code: its extension (a ``Stop`` hook), linked to our copy the way
``qwen extensions link`` does: one ``.qwen-extension-install.json`` naming the copy.

A file write, not the CLI: it is all the link writes (Qwen Code keeps no signature), it works
offline, and it uninstalls exactly. Linked, not copied: a copy breaks the relative launcher link.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..plugin_places import NAME, qwen_home
from .agent_diff import recorded, stage_plugin
from .context import Ctx


def install_qwen(ctx: Ctx, source: Path) -> None:
    extension = stage_plugin(ctx, source, "qwen")
    meta = qwen_home(ctx.env) / "extensions" / NAME / ".qwen-extension-install.json"
    if ctx.dry:
        ctx.say(f"would write: {meta}")
        return
    text = json.dumps({"source": str(extension), "type": "link", "originSource": "QwenCode"})

    def link() -> None:
        ctx.say(f"+ link {meta.parent} -> {extension}")
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(text + "\n", encoding="utf-8")

    recorded(ctx, "qwen", qwen_home(ctx.env), link)
