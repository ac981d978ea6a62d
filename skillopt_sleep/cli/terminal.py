"""Text bound for a terminal: what the CLI prints is never a raw escape sequence.

Rules, reasons, diffs and notices can carry text an optimizer or a transcript wrote. Written
raw, an escape sequence could recolour, hide or rewrite lines, set the window title, or a
direction override could reorder what the user reads. :func:`printable` shows such characters
as visible escapes (``\\x1b``, ``\\u202e``) and keeps newlines, tabs and CRLF line ends.
"""

from __future__ import annotations

import re
import unicodedata

_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs"}
_KEPT = {"\n", "\t"}
_CANDIDATE = re.compile(r"[^\x20-\x7e\n\t]")


def _escape(ch: str) -> str:
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    )


def printable(text: str) -> str:
    """``text`` with control, invisible and direction-changing characters shown escaped."""

    def one(match: re.Match[str]) -> str:
        ch = match.group(0)
        if ch == "\r" and text.startswith("\n", match.end()):
            return ch  # a CRLF line end
        if ch in _KEPT or unicodedata.category(ch) not in _HIDDEN_CATEGORIES:
            return ch
        return _escape(ch)

    return _CANDIDATE.sub(one, text)
