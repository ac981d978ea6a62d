"""The form of a rule's text that the lint judges, and the characters a rule may never carry.

A hostile rule hides its words from a pattern: a Cyrillic "о" in "ignоre", a zero-width space
inside "--no-verify", fullwidth "ｃｕｒｌ", a terminal escape that rewrites what the user sees.
So a rule is refused outright when it carries invisible or control characters, and otherwise
judged on its *folded* form: Unicode NFKC (fullwidth, ligatures, mathematical letters become
plain ones), combining marks dropped, and every character that Unicode's confusables table says
looks like an ASCII character replaced by it. The folded form is only ever looked at, never
written: the rule that passes is written as given.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables  # Unicode's confusables.txt, as data

# Invisible characters that are letters' neighbours rather than controls (category Cf covers
# most; these few are in other categories but hide text just as well).
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u180e"}
_NAMES = {
    "\x1b": "a terminal escape (ESC)",
    "\x9b": "a terminal escape (CSI)",
    "\x07": "a bell (BEL)",
}


def refused_character(text: str) -> str | None:
    """Why ``text`` may not be written as a rule because of one of its characters, or None.

    Control characters (terminal escapes among them), zero-width and other invisible or
    direction-changing characters, line and paragraph separators and private-use characters
    have no place in one line of guidance: they hide or rewrite what a reader sees.
    """
    for ch in text:
        category = unicodedata.category(ch)
        if ch in _NAMES:
            what = _NAMES[ch]
        elif category == "Cc":
            what = "a control character"
        elif category in ("Cf", "Zl", "Zp") or ch in _INVISIBLE:
            what = "an invisible or direction-changing character"
        elif category in ("Co", "Cs", "Cn"):
            what = "a private-use, surrogate or unassigned character"
        else:
            continue
        return f"contains {what} (U+{ord(ch):04X}); a rule is plain visible text"
    return None


@lru_cache(maxsize=1)
def _fold_table() -> dict[int, str]:
    """Each non-ASCII character that looks like one printable ASCII character -> that character."""
    table: dict[int, str] = {}
    for char, homoglyphs in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_like = [
            h["c"]
            for h in homoglyphs
            if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isprintable()
        ]
        if ascii_like:
            letters = [c for c in ascii_like if c.isalnum()]
            table[ord(char)] = (letters or ascii_like)[0]
    return table


def fold(text: str) -> str:
    """The folded form of ``text`` (see the module docstring); case is kept."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = unicodedata.normalize("NFKC", text).translate(_fold_table())
    # The table maps some characters onto a letter that NFKC would fold further (rare); once more.
    return unicodedata.normalize("NFKC", text)
