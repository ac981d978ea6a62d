"""The clauses of a correction, each with whether it is said against something: the words
that negate in the languages the harvest reads (a small vocabulary; Japanese and Chinese
negations are matched inside words, which those languages write without spaces), and the
punctuation that ends a clause, full-width included. Pure.
"""

from __future__ import annotations

import re
from itertools import pairwise

# Words that turn the rest of their clause against something: what follows is not the example.
_NEGATIVE = re.compile(
    r"(?<![\w-])(?:not|no|never|don't|dont|do not|without|skip|avoid|stop|leave out|leave|exclude"
    r"|ignore|ignoriere?|ignorer|ignora|omit"
    r"|except|nicht|nie|niemals|kein\w*|ohne|au(?:ß|ss)er|lass|pas|jamais|sans|sauf|nunca|sin"
    r"|excepto|nothing|nada|rien|nichts|keinerlei|aucune?|ninguna?|none|neither|nor"
    r"|non|né|mai|niente|nulla|nessun[oa]?|senza|n[aã]o|nem|nenhum[a]?|sem"
    r"|niet|geen|nooit|zonder|behalve"  # Dutch
    r"|inte|aldrig|utan|ingen|inget|inga|ej|f[oö]rutom|ikke|aldri|uden|uten"  # Nordic
    r"|nie|nigdy|bez|[zż]adn\w*|opr[oó]cz|pomi[nń]\w*|wyklucz\w*"  # Polish
    r"|nikdy|[zž][aá]dn\w*|krom[eě]|vynech\w*|vynechej|vylu[cč]\w*"  # Czech
    r"|de[gğ]il|asla|hi[cç]|hari[cç]|olmadan"  # Turkish
    r"|не|нет|никогда|без|кроме|ніколи|крім"  # Russian, Ukrainian
    r"|jangan|tanpa|kecuali|bukan|tidak|đừng|không|trừ|मत|नहीं|बिना"  # Indonesian, Vietnamese, Hindi
    # leaving something out, in the other languages the harvest reads
    r"|lascia(?:re)?\s+(?:fuori|stare)|escludi\w*|tralascia\w*|deja\s+fuera|excluye|omite"
    r"|deixa\s+de\s+fora|exclui|pula|laisse\s+de\s+c[oô]t[ée]|exclus|sla\s+\S+\s+over)(?![\w-])"
    # Japanese and Chinese write no spaces: their negations are matched inside the words
    # (やめ: "stop", as "stop" is in English)
    r"|\u306a\u3044|\u306a\u3044\u3067|\u307e\u305b\u3093|\u7981\u6b62|\u4e0d|\u522b|\u6ca1|\u52ff"
    r"|\u3084\u3081|\u6b62\u3081"
    # Korean attaches its particles: 말고, 마세요, 않, 없이, 빼고, 제외, 금지 inside the words
    r"|\ub9d0\uace0|\ub9c8\uc138\uc694|\uc54a|\uc5c6\uc774|\ube7c\uace0|\uc81c\uc678|\uae08\uc9c0",
    re.IGNORECASE,
)
# Japanese "only": しか ... ない (or ません) says what there is and nothing more; its ない negates
# nothing ("2 コアしかない": two cores only).
_ONLY_NOT = re.compile(r"\u3057\u304b[^\s\u3002\u3001]{0,8}?(?:\u306a\u3044|\u307e\u305b\u3093)")
# A clause that quotes a command back to approve it ("yes, `make test` is right, but ..."): the
# command is the user's example, whatever the attempt did around it.
_APPROVED = re.compile(
    r"(?<![\w-])(?:yes|right|correct|fine|good|ok|okay|ja|richtig|korrekt|gut|oui|bon|bien"
    r"|correcte?|s[ií]|correcto|bueno|vale)(?![\w-])",
    re.IGNORECASE,
)
_SPLIT = re.compile(
    r"[;!?]\s+|\.\s+|\n+|[\u3002\uff1b\uff01\uff1f\uff0c\u3001]\s*"
    r"|,\s*(?=(?:not|never|nicht|but|aber|mais|pero|only|nur)\b)"
    r"|\s+(?=(?:instead of|rather than|statt|anstatt|au lieu de|en vez de)\b)"
    r"|(?<=\ube7c\uace0)\s+|(?<=\ub9d0\uace0)\s+",  # Korean "X 빼고 / 말고 Y": without X, Y
    re.IGNORECASE,
)
_LIST_WORDS = re.compile(r"(?<![\w-])(?:or|and|nor|oder|und|noch|ou|et|ni|o|y)(?![\w-])", re.I)
# The body of a quoted span: an apostrophe between two letters ("Don't", "l'app") is part of it,
# never its closing mark, and a closing mark is never followed by a letter.
QUOTE_BODY = r"(?:[^'\"\u201d\u2019\n]|(?<=\w)['\u2019](?=\w))"
# A letter a quote mark may not touch: Japanese, Chinese and Korean write their quotes against
# their letters ('不要写"亲爱的用户"'), the languages with spaces do not ("Don't", "l'app").
SPACED = r"[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
# The marks a quoted span opens with: straight and curly ones, and the low mark that Hungarian,
# Polish, Romanian, Czech and German open with ("soha ne tegyél „...” jelet").
OPEN_MARKS = "'\"\u201c\u2018\u201e"
OPEN_QUOTE = f"[{OPEN_MARKS}]"
_QUOTED = re.compile(
    rf"`([^`\n]{{1,160}})`|(?<!{SPACED}){OPEN_QUOTE}({QUOTE_BODY}{{1,160}})['\"\u201d\u2019]"
    rf"(?!{SPACED})"
)

# Words right before a command that name it as where something comes from, not as what to run:
# "built from the docstrings by `make apidocs`", "comes from `make codegen`", "CI runs `make
# docs`", "généré par `make docs`" (a participle before "par"/"por": "commence par" asks).
_SOURCE = re.compile(
    r"(?<![\w-])(?:by|from|out\s+of|von|durch|aus|door|uit|da|dal|dalla|dai|desde|runs|builds"
    r"|generates|regenerates|renders|produces|compiles)\s*$"
    r"|\w(?:é|ée|és|ées|ado|ada|ados|adas|ido|ida|idos|idas|ato|ata|ati|ate)\s+"
    r"(?:par|por|pelo|pela|da)\s*$",
    re.IGNORECASE,
)


def sourced(before: str) -> bool:
    """Whether a command quoted right after ``before`` is named as where something comes from
    (a source the correction explains), never as what the user asks to run."""
    return bool(_SOURCE.search(before))


def _clauses(text: str) -> list[tuple[str, bool]]:
    """The clauses of a correction, each with whether it is said against something. A negation
    reaches the next comma ("Nicht mit make, wir bauen mit `cargo build`"), except over a list
    ("never `a`, `b` or `c`"): a piece of quoted names alone keeps the polarity before it."""
    out: list[tuple[str, bool]] = []
    for part in _SPLIT.split(text):
        negative = False
        for piece in _commas(part):
            own = re.sub(_LIST_WORDS, " ", _QUOTED.sub(" ", piece)).strip(" .,:")
            if own or not out:
                words = _ONLY_NOT.sub(" ", _QUOTED.sub(" ", piece))
                negative = bool(_NEGATIVE.search(words)) or bool(
                    re.match(
                        r"(?:instead of|rather than|statt|anstatt|au lieu|en vez)", piece, re.I
                    )
                )
            out.append((piece, negative))
    return out


def _commas(text: str) -> list[str]:
    """``text`` cut at its commas, colons and spaced dashes outside quoted spans (a colon or a
    dash ends a negation's reach: "leave out `a/`: I only need `b/`", and an "only" after a dash
    keeps to what follows it), each piece stripped, none empty."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    cuts = [
        i
        for i, ch in enumerate(text)
        if (
            ch == ","
            or (ch in ":\uff1a" and text[i + 1 : i + 2] in ("", " ", "\n"))
            or (ch in "\u2014\u2013" and text[i - 1 : i] == " " and text[i + 1 : i + 2] == " ")
        )
        and not any(a <= i < b for a, b in quoted)
    ]
    edges = [-1, *cuts, len(text)]
    pieces = (text[a + 1 : b].strip() for a, b in pairwise(edges))
    return [p for p in pieces if p]
