"""The spans a correction says, whatever its language: what it quotes (backticks, quotes, corner
brackets) and the tokens that carry meaning unquoted (URLs, domains, paths, references such as
``!412`` or ``#88``, names with an inner capital such as ``DataHub``, emoji). Each span comes with
whether its clause is said against something, and whether it is said approvingly.

A few meanings a correction carries without any span are read from a small multilingual
vocabulary: emoji, links, a limit in lines or characters and where a line goes (first, last).
What these words yield is only ever a candidate: :mod:`.held_text` keeps a check when it fails
on the corrected attempt and passes on the user's example. Pure: no IO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .clauses import _APPROVED, _LIST_WORDS, _NEGATIVE, OPEN_MARKS, SPACED, _clauses

_I = re.IGNORECASE
_QUOTED = re.compile(
    rf"`([^`\n]{{1,160}})`|(?<!{SPACED})[{OPEN_MARKS}\u00ab]((?:[^'\"\u201d\u2019\u00bb\n]"
    rf"|(?<=\w)['\u2019](?=\w)){{1,160}})['\"\u201d\u2019\u00bb](?!{SPACED})"
    r"|\u300c([^\u300d\n]{1,160})\u300d"
)
_URL = r"https?://[^\s<>()\"'`]+"
_DOMAIN = r"(?<![\w./@-])(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|co|de|fr|es)\b"
_REFERENCE = r"(?<![\w!#])[!#]\d{1,7}\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b"
_INNER_CAPITAL = r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b"
# A code fence with its language ("```bash"), a host-like name ending in a number ("staging-db-2").
_FENCE = r"(?<!`)```[\w+-]+"
_NUMBERED_NAME = r"\b[a-z]+(?:-[a-z0-9]+)+-\d+\b"
# A channel, tag or handle ("#eng-internal", "@oncall-team"): a name no dictionary word is, named
# as it is written (an address's @ follows a letter: no handle).
_CHANNEL = r"(?<![\w#&/@.])[#@][A-Za-z][\w-]*\w"
_SALIENT = re.compile(
    rf"{_URL}|{_DOMAIN}|{_REFERENCE}|{_INNER_CAPITAL}|{_FENCE}|{_NUMBERED_NAME}|{_CHANNEL}"
)
EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2b55\U0001f000-\U0001f2ff]\ufe0f?")

# The few meanings read from words (English, German, French, Spanish, Japanese; relative links in
# Chinese and Korean too).
EMOJI_WORDS = re.compile(
    r"emojis?|emoticons?|\u00e9mojis?|smileys?|\u7d75\u6587\u5b57|\u9854\u6587\u5b57|\u30a8\u30e2\u30b8",
    _I,
)
RELATIVE_WORDS = re.compile(
    r"\brelati(?:ve|v\w*|fs?|vas?|vos?)\b|\u76f8\u5bfe|\u76f8\u5bf9|\u76f8\u5c0d|hardcod\w*"
    r"|\uc0c1\ub300\s*(?:\uacbd\ub85c|\ub9c1\ud06c|\uc8fc\uc18c)|full\s+(?:url|link)"
    r"|absolute\s+(?:url|link)|g[oö]reli|wzgl[eę]dn\w*|относительн\w*|відносн\w*|relatief",
    _I,
)
_LAST = (
    r"last|final|closing|bottom|end|letzte\w*|schluss|ende|derni[eè]re?|fin|[uú]ltim[ao]|final"
    r"|\u6700\u5f8c|\u672b\u5c3e|\u6700\u7d42"
)
_FIRST = (
    r"first|opening|top|start\w*|begin\w*|erste\w*|anfang\w*|beginn\w*|premi[eè]re?|d[ée]but"
    r"|commenc\w*|primer[ao]?|inicio|empie?z\w*|comienz\w*|\u6700\u521d|\u5148\u982d|\u5192\u982d"
)
LAST_WORDS = re.compile(rf"(?<!\w)(?:{_LAST})(?!\w)", _I)
FIRST_WORDS = re.compile(rf"(?<!\w)(?:{_FIRST})(?!\w)", _I)
_NUMBER_WORDS = {
    **dict.fromkeys(("one", "eins", "un", "une", "uno", "una"), 1),
    **dict.fromkeys(("two", "zwei", "deux", "dos"), 2),
    **dict.fromkeys(("three", "drei", "trois", "tres"), 3),
    **dict.fromkeys(("four", "vier", "quatre", "cuatro"), 4),
    **dict.fromkeys(("five", "fünf", "funf", "cinq", "cinco"), 5),
    **dict.fromkeys(("six", "sechs", "seis"), 6),
    **dict.fromkeys(("seven", "sieben", "sept", "siete"), 7),
    **dict.fromkeys(("eight", "acht", "huit", "ocho"), 8),
    **dict.fromkeys(("nine", "neun", "neuf", "nueve"), 9),
    **dict.fromkeys(("ten", "zehn", "dix", "diez"), 10),
    **dict.fromkeys(("twenty", "zwanzig", "vingt", "veinte"), 20),
    **dict.fromkeys(("thirty", "dreißig", "trente", "treinta"), 30),
    **dict.fromkeys(("forty", "vierzig", "quarante", "cuarenta"), 40),
    **dict.fromkeys(("fifty", "fünfzig", "cinquante", "cincuenta"), 50),
    **dict.fromkeys(("sixty", "sechzig", "soixante", "sesenta"), 60),
    **dict.fromkeys(("seventy", "siebzig", "soixante-dix", "setenta"), 70),
    **dict.fromkeys(("eighty", "achtzig", "quatre-vingts", "ochenta"), 80),
    **dict.fromkeys(("hundred", "hundert", "cent", "cien"), 100),
}
_UNIT = (
    r"(?P<unit>characters?|chars?|zeichen|caract[eè]res?|caracteres?|caratteri|\u6587\u5b57"
    r"|tecken|tegn|znak\w*|karakter|символ\w*|знак\w*|\uae00\uc790|tekens|k[yý]\s+t[uự]"
    r"|lines?|zeilen?|lignes?|l[ií]neas?|linhas?|righe|\u884c|rader|rad|linjer|linier|wiersz\w*|\u0159\u00e1dk\w*|\u0159\u00e1dek|sat[iı]r|строк\w*|рядк\w*|\uc904|regels|baris"
    r"|words?|w[oö]rter|mots|palabras|palavras|parole|\u5358\u8a9e|\u8bcd|ord|s[lł]owa?|s[lł][oó]w|slov\w*|kelime|слов\w*|\ub2e8\uc5b4|woorden|kata)"
)
_COUNT = rf"(?P<n>\d{{1,5}}|{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})"
_AMOUNT = re.compile(rf"(?<!\w){_COUNT}\s*{_UNIT}(?![a-z\u00e0-\u017f])", _I)  # not "3 radios"
# Words that make a number a ceiling, near it: "at most", "the cap", "no more than", "以内".
_CEILING = re.compile(
    r"\b(?:at\s+most|max(?:imum|imal)?|cap|caps|limit|no\s+more\s+than|not\s+more\s+than|under"
    r"|fewer\s+than|less\s+than|fit|fits|only|just|h[oö]chstens|grenze|nicht\s+mehr\s+als"
    r"|au\s+plus|pas\s+plus\s+de|limite|moins\s+de|como\s+m[aá]ximo|no\s+m[aá]s\s+de|m[aá]ximo"
    r"|menos\s+de|tope|massim[oa]|al\s+massimo|non\s+pi[uù]\s+di|até"
    r"|or\s+(?:less|fewer)|oder\s+weniger|ou\s+moins|o\s+menos|no\s+longer\s+than|within"
    r"|not\s+longer\s+than|nicht\s+l[aä]nger\s+als|d[ée]passe\w*|k[uü]rzer\s+als|keep|stays?"
    r"|passen|tenir|caber|quepa"
    r"|h[oö]gst|h[oø]jst|h[oø]yst|maks\w*|najwy[zż]ej|nejv[yý][sš]e|maxim[aá]ln[eě]|en\s+fazla"
    r"|не\s+более|не\s+больше|максимум|до|\ucd5c\ub300|\uc774\ub0b4|\uc774\ud558"
    r"|maximaal|hoogstens|niet\s+meer\s+dan|paling\s+banyak|t[oố]i\s+[dđ]a"
    # a text cut at a length has that length as its ceiling ("corta aos 90", "viene tagliato")
    r"|cut|cuts|truncat\w*|cort[ae]\w*|tagliat?\w*|tronca\w*|coup[eé]\w*|tronqu\w*"
    r"|abgeschnitten|schneidet)\b|\u4ee5\u5185|\u307e\u3067|\u4ee5\u4e0b",
    _I,
)


_SHOWN = re.compile(
    r"(?:\blike|e\.g\.|such\s+as|for\s+(?:example|instance)|z\.\s?b\.|\bwie|\bcomme|\bcomo"
    r"|par\s+exemple|por\s+ejemplo)[\s,:]*$",
    _I,
)


_ONLY = re.compile(
    r"\b(?:only|nur|seulement|uniquement|solo|s[oó]lo|solamente)\b|\u3060\u3051|\u306e\u307f", _I
)


@dataclass(frozen=True)
class Span:
    """One thing a correction names, with how its clause says it."""

    text: str
    against: bool  # its clause is said against something ("not 'MR 412'")
    approved: bool  # its clause approves it ("`make test` is right")
    quoted: bool
    shown: bool = False  # introduced as an instance of what is wanted ("like `API_URL`")
    kept: bool = False  # named as what the work keeps to ("only our `src/`")
    clause: int = 0  # which clause of the correction names it
    negated_after: bool = False  # its clause is said against something only after it


def _trimmed(token: str) -> str:
    return token.rstrip(".,;:!?)]'\"")


def spans(correction: str) -> list[Span]:
    """Every span ``correction`` names, in order, each once."""
    out: list[Span] = []
    for at, (clause, against) in enumerate(_clauses(correction)):
        approved = bool(_APPROVED.search(_QUOTED.sub(" ", clause))) and not against
        for match in _QUOTED.finditer(clause):
            text = next(g for g in match.groups() if g is not None).strip()
            shown = bool(_SHOWN.search(clause[: match.start()]))
            kept = bool(_ONLY.search(clause)) and not against
            after = against and not _NEGATIVE.search(_QUOTED.sub(" ", clause[: match.start()]))
            out.append(Span(text, against, approved, True, shown, kept, at, after))
        rest = _QUOTED.sub(" ", clause)
        for match in _SALIENT.finditer(rest):
            fence = match.group(0).startswith("```")  # code markup, as good as quoted
            out.append(Span(_trimmed(match.group(0)), against, approved, fence, clause=at))
    unique: dict[str, Span] = {}
    for span in out:
        if span.text:
            unique.setdefault(span.text, span)
    return list(unique.values())


def listed(correction: str) -> list[tuple[str, ...]]:
    """The quoted spans ``correction`` names as one list ("bans “e.g.,” and “i.e.,”", "write
    “for example” or “that is”"), in order, each list of two or more: a list's spans play one
    part, and two lists of one length name each other's spans in order."""
    groups: list[list[str]] = []
    end = -1
    for match in _QUOTED.finditer(correction):
        text = next(g for g in match.groups() if g is not None).strip()
        gap = _LIST_WORDS.sub(" ", correction[end : match.start()]) if end >= 0 else "x"
        if re.fullmatch(r"[\s,/]*", gap):
            groups[-1].append(text)
        else:
            groups.append([text])
        end = match.end()
    return [tuple(g) for g in groups if len(g) > 1]


_STRICT = re.compile(
    r"(?:\bunder|\bbelow|fewer\s+than|less\s+than|\bunter|weniger\s+als|moins\s+de|menos\s+de"
    r"|k[uü]rzer\s+als)\s+$",
    _I,
)


def limits(correction: str) -> list[tuple[str, int]]:
    """The ceilings a correction states, as ("lines" | "words" | "chars", n): a number with a
    unit and a word of ceiling (or of cutting) in the same clause."""
    found: list[tuple[str, int]] = []
    for clause, _ in _clauses(correction):
        if not _CEILING.search(clause):
            continue
        for match in _AMOUNT.finditer(clause):
            raw = match.group("n").lower()
            n = int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw, 0)
            n -= bool(_STRICT.search(clause[: match.start()]))  # "under 50 words": 49 at most
            if n > 0:
                found.append((_unit(match.group("unit").lower()), n))
    return found


def _unit(word: str) -> str:
    """ "lines", "words" or "chars": what a unit word of :data:`_UNIT` counts."""
    lines = ("line", "zeile", "ligne", "lín", "lin", "rig", "\u884c", "rad", "wiersz", "řád")
    if word.startswith((*lines, "sat", "строк", "рядк", "\uc904", "regel", "baris")):
        return "lines"
    words = ("word", "wort", "wört", "mot", "palab", "palav", "parol", "\u5358", "\u8bcd")
    if word == "ord" or word.startswith(
        (*words, "sł", "slo", "kelime", "слов", "\ub2e8\uc5b4", "woord", "kata")
    ):
        return "words"
    return "chars"
