"""Formatting a correction forbids, named in words: em dashes, bold, tables, emoji, headings, code
blocks, semicolons, hashtags, exclamation marks, bullet points, in a small vocabulary per language (a
construct written without spaces, in Japanese, Chinese or Korean, is forbidden where a clause
said against something names it). Candidates only, held like every mined check. Pure: no IO.
"""

from __future__ import annotations

import re

from .clauses import _clauses
from .line_ends import line_ends

_I = re.IGNORECASE
_EXCLAMATION = (
    r"exclamation marks?|ausrufezeichen|points? d'exclamation|signos? de exclamaci[oó]n"
    r"|punti esclamativi|pontos? de exclama[cç][aã]o|uitroeptekens?|wykrzyknik\w*"
    r"|vyk[rř]i[cč]n[ií]k\w*|utropstecken|[uü]nlem\w*|восклицательн\w* знак\w*"
)
_BULLET = r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]"
_NO_HASHTAG = r"(?s)\A(?!.*(?<![\w&#/])#[^\W\d]\w*)"
# Formatting a correction may forbid: words naming it -> (check kind, value).
_CONSTRUCTS: tuple[tuple[str, str, str, str], ...] = (
    (r"em[- ]?dash(?:es)?|gedankenstrich(?:e)?", "not_contains", "\u2014", "no em dashes"),
    (
        r"bold(?: text)?|fett(?:druck|schrift)?|жирн\w*|gras|negrita|grassetto|negrito|vet(?:gedrukt)?",
        "not_contains",
        "**",
        "no bold",
    ),
    (
        r"tables?|tabellen?|tableaux?|tablas?|tabelas?|tabelle|tabel(?:len)?",
        "regex",
        r"(?s)\A(?!.*^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|)",
        "no tables",
    ),
    (
        r"emojis?|emoticons?",
        "regex",
        "(?s)\\A(?!.*[\U0001f300-\U0001faff\u2600-\u27bf])",
        "no emoji",
    ),
    (
        r"headings?|headers?|[uü]berschriften|titres?|t[ií]tulos?|titoli|kopjes?",
        "regex",
        r"(?s)\A(?!.*^#{1,6} )",
        "no headings",
    ),
    (r"code ?blocks?|codebl[oö]cke?", "not_contains", "```", "no code blocks"),
    (r"semicolons?|semikolons?", "not_contains", ";", "no semicolons"),
    (r"hashtags?|\u30cf\u30c3\u30b7\u30e5\u30bf\u30b0", "regex", _NO_HASHTAG, "no hashtags"),
    (
        _EXCLAMATION,
        "not_contains",
        "!",
        "no exclamation marks",
    ),
    (
        r"bullet(?: point)?s?|lists?|aufz[aä]hlungen?|stichpunkte?",
        "regex",
        rf"(?s)\A(?!.*{_BULLET})",
        "no bullet points",
    ),
)
# The same constructs in Japanese, Chinese and Korean, which write no spaces to look before.
_CJK_CONSTRUCTS = {
    "no exclamation marks": "\u611f\u5606\u7b26|\u611f\u53f9\u53f7|\ub290\ub08c\ud45c",
    "no tables": "\u8868\u683c|\u30c6\u30fc\u30d6\u30eb|\ud45c\ub97c",
    "no bold": "\u592a\u5b57|\u52a0\u7c97|\uad75\uac8c",
    "no headings": "\u898b\u51fa\u3057|\u6807\u9898|\uc81c\ubaa9",
    "no hashtags": "\u30cf\u30c3\u30b7\u30e5\u30bf\u30b0|\u8bdd\u9898\u6807\u7b7e|\ud574\uc2dc\ud0dc\uadf8",
}
_NO = (  # words refusing a construct, a rule's own ("the style guide bans exclamation marks") too
    r"(?:no|never|without|don't use|do not use|stop using|avoid|keine?n?|ohne|nie|bans?|banned"
    r"|forbids?|forbidden|disallows?|verbietet|verboten|interdit|proh[ií]be"
    r"|pas de|sans|sin|nada de|ning[uú]n\w*|niente|senza|nessun\w*|sem|nenhum\w*|geen|zonder"
    r"|bez|[zż]adn\w*|[zž][aá]dn\w*|inga|ingen|inget|utan|hi[cç]|без|никаких|не|нет)"
)


def format_rules(text: str) -> list[tuple[str, str | int]]:
    """Constructs the correction forbids; not one named as what a line-end rule is about
    ("kein Stichpunkt endet mit einem Punkt" keeps the bullets, without the full stop)."""
    found: list[tuple[str, str | int]] = []
    if line_ends(text):
        return found
    against = " ".join(c for c, negative in _clauses(text) if negative)
    for words, kind, value, label in _CONSTRUCTS:
        if (cjk := _CJK_CONSTRUCTS.get(label)) and re.search(cjk, against):
            found.append((kind, value))  # written without spaces: named where it is refused
        elif re.search(rf"\b{_NO}\s+(?:\w+\s+){{0,2}}(?:{words})\b", text, _I) or re.search(
            rf"\b(?:stop\s+using|stop\s+adding|avoid|lass\s+(?:die|das)?\s*)\s*(?:{words})\b",
            text,
            _I,
        ):
            found.append((kind, value))
    if re.search(_CAPITALS, against, _I):  # a name no other rule means: any clause said against
        found.append(("regex", NO_SHOUTING))
    return found


# Writing in capitals, named in words ("Nicht alles in Großbuchstaben", "no all caps").
_CAPITALS = (
    r"(?<!\w)(?:all[- ]caps|capitals|capital letters|upper[- ]?case|gro(?:ß|ss)buchstaben"
    r"|majuscules?|may[uú]sculas|maiuscol\w*|mai[uú]sculas|hoofdletters|wielki\w* liter\w*"
    r"|velk[aá]\w* p[ií]smen\w*|versaler|b[uü]y[uü]k harf\w*|заглавн\w*|капс\w*)(?!\w)"
    r"|\u5927\u6587\u5b57|\u5927\u5199|\ub300\ubb38\uc790"
)
# Three words in capitals in a row, numbers and signs between them aside ("RELEASE 3.1 IST DA");
# two acronyms side by side ("JSON API") are no shouting.
_CAP = "A-Z\u00c0-\u00d6\u00d8-\u00de"
NO_SHOUTING = rf"(?s)\A(?!.*(?<!\w)[{_CAP}]{{2,}}(?:[\s\d.,:;!?-]+[{_CAP}]{{2,}}){{2,}}(?!\w))"
