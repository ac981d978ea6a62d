"""Numbers written as words, in the languages the harvest reads: "delapan puluh" is 80, "τρεις"
is 3, "восьмидесяти" is 80. A limit is often said in words, and what the number counts is read
from the answer (:mod:`.measured_limits`), so only the number itself needs reading here.

One is left out: in most of these languages it is also an article or "a" ("one of the steps"),
and a ceiling of one is rarely meant that way. Pure: no IO.
"""

from __future__ import annotations

import re


def _w(words: str) -> tuple[str, ...]:
    return tuple(words.split())


# 2..10, then the tens and a hundred; several forms where a language inflects them after "not
# more than" (Russian, Ukrainian and Greek genitives or genders)
_WORDS: dict[int, tuple[str, ...]] = {
    2: _w(
        "two zwei deux dos due dois duas twee två to kaksi dwa dwie dva dvě iki два две "
        "двух дві двох δύο dua hai दो"
    ),
    3: _w(
        "three drei trois tres tre três drie kolme trzy tři üç три трёх трех трьох τρία "
        "τρεις τριών tiga ba तीन"
    ),
    4: _w(
        "four vier quatre cuatro quattro quatro fyra fire neljä cztery čtyři dört четыре "
        "четырёх четырех чотири чотирьох τέσσερα τέσσερις τεσσάρων empat bốn चार"
    ),
    5: _w(
        "five fünf cinq cinco cinque vijf fem viisi pięć pět beş пять пяти п'ять п'яти "
        "πέντε lima năm पाँच पांच"
    ),
    6: _w(
        "six sechs seis sei zes sex seks kuusi sześć šest altı шесть шести шість έξι enam sáu छह"
    ),
    7: _w(
        "seven sieben sept siete sette sete zeven sju syv seitsemän siedem sedm yedi семь "
        "семи сім επτά εφτά tujuh bảy सात"
    ),
    8: _w(
        "eight acht huit ocho otto oito åtta otte åtte kahdeksan osiem osm sekiz восемь "
        "восьми вісім οκτώ οχτώ delapan tám आठ"
    ),
    9: _w(
        "nine neun neuf nueve nove negen nio ni yhdeksän dziewięć devět dokuz девять "
        "девяти дев'ять дев'яти εννέα εννιά sembilan chín नौ"
    ),
    10: _w(
        "ten zehn dix diez dieci dez tien tio ti kymmenen dziesięć deset on десять десяти "
        "δέκα sepuluh mười दस"
    ),
    20: _w(
        "twenty zwanzig vingt veinte venti vinte twintig tjugo tyve tjue kaksikymmentä "
        "dwadzieścia dvacet yirmi двадцать двадцати двадцять двадцяти είκοσι बीस"
    ),
    30: _w(
        "thirty dreißig trente treinta trenta trinta dertig trettio tredive tretti "
        "kolmekymmentä trzydzieści třicet otuz тридцать тридцати тридцять тридцяти "
        "τριάντα तीस"
    ),
    40: _w(
        "forty vierzig quarante cuarenta quaranta quarenta veertig fyrtio fyrre førti "
        "neljäkymmentä czterdzieści čtyřicet kırk сорок сорока σαράντα चालीस"
    ),
    50: _w(
        "fifty fünfzig cinquante cincuenta cinquanta cinquenta vijftig femtio halvtreds "
        "femti viisikymmentä pięćdziesiąt padesát elli пятьдесят пятидесяти п'ятдесят "
        "п'ятдесяти πενήντα पचास"
    ),
    60: _w(
        "sixty sechzig soixante sesenta sessanta sessenta zestig sextio seksti "
        "kuusikymmentä sześćdziesiąt šedesát altmış шестьдесят шестидесяти шістдесят "
        "εξήντα साठ"
    ),
    70: _w(
        "seventy siebzig soixante-dix setenta settanta zeventig sjuttio halvfjerds sytti "
        "seitsemänkymmentä siedemdziesiąt sedmdesát yetmiş семьдесят семидесяти сімдесят "
        "εβδομήντα सत्तर"
    ),
    80: _w(
        "eighty achtzig quatre-vingts ochenta ottanta oitenta tachtig åttio firs åtti "
        "kahdeksankymmentä osiemdziesiąt osmdesát seksen восемьдесят восьмидесяти "
        "вісімдесят вісімдесяти ογδόντα अस्सी"
    ),
    90: _w(
        "ninety neunzig quatre-vingt-dix noventa novanta negentig nittio halvfems nitti "
        "yhdeksänkymmentä dziewięćdziesiąt devadesát doksan девяносто дев'яносто ενενήντα "
        "नब्बे"
    ),
    100: _w(
        "hundred hundert cent cien cento cem honderd hundra hundrede hundre sata sto yüz "
        "сто ста εκατό seratus सौ"
    ),
}
# a unit word times ten, where a language says tens that way ("delapan puluh", "tám mươi")
_TENS = ("puluh", "mươi")
_BY_WORD = {w: n for n, words in _WORDS.items() for w in words}
# words of too many meanings to be read as a number anywhere: "on" (Turkish ten), "to", "ti",
# "ni", "ba", "hai", "tres" (Danish sixty), "sei", "sex", "tre", "ta" ...
_AMBIGUOUS = frozenset(
    {"on", "to", "ti", "ni", "ba", "hai", "năm", "sei", "sex", "cent", "due", "fire", "sto"}
)
_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def numbers_in_words(text: str) -> list[int]:
    """The numbers ``text`` writes as words, in order ("delapan puluh" is one number, 80)."""
    tokens = [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]
    found: list[int] = []
    for i, token in enumerate(tokens):
        n = _BY_WORD.get(token)
        if n is None or token in _AMBIGUOUS:
            continue
        if i + 1 < len(tokens) and tokens[i + 1] in _TENS and n < 10:
            n *= 10
        found.append(n)
    return found
