"""Text checks generated and held against two answers: the attempt the user corrected, and the
user's example built from it.

The principle does not depend on the wording. A span the correction names that the attempt
lacks is what the user wants; a span of the attempt the correction quotes back is what they
object to (unless said approvingly). The example is the attempt with each objected span
replaced by the wanted one of the same shape (``MR 412`` -> ``!412`` everywhere the shape
recurs, a full URL -> the relative path named), or with the wanted line added where the
correction puts it. From a small generic family of candidates (contains / not contains, a
reference shape, first or last line, heading, a limit in lines or characters, one link shape,
no emoji), only those that fail on the attempt and pass on the example are kept, and no two
that ask for opposite things. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..checks.judge import rule_check
from ..models import Check
from .action_refs import ActionLike
from .code_words import code_words
from .examples import consistent
from .line_ends import ended, line_end_checks
from .measured_limits import cut, limit_check, measured_limits
from .spans import (
    EMOJI,
    EMOJI_WORDS,
    FIRST_WORDS,
    LAST_WORDS,
    RELATIVE_WORDS,
    Span,
    limits,
    listed,
    spans,
)
from .text_checks import LINKS_RELATIVE, check_or_none

_URL_IN = re.compile(r"https?://[^\s<>()\"'`]+")
_LINK_TARGET = re.compile(r"\]\(\s*(https?://[^)\s]+)\)")
_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*$", re.MULTILINE)
_NO_EMOJI = "(?s)\\A(?!.*[\U0001f300-\U0001faff\u2600-\u27bf])"
_ACTING = frozenset({"command", "write", "edit", "delete"})
_LABEL_CHARS = 200


@dataclass(frozen=True)
class Pair:
    """An objected span of the attempt and what the user wants in its place."""

    objected: str
    wanted: str
    pattern: str  # a regex of the objected shape, its digits captured
    template: str  # the wanted shape, with the same captures
    shape: str = ""  # a regex of the wanted shape, when the two share a number
    said: str = ""  # the objected span as the user said it, when it stands for a whole URL
    inferred: bool = False  # the attempt's own heading, in the place of the one the user named


@dataclass(frozen=True)
class TextExample:
    """The user's example answer, and what the correction asked of it."""

    text: str
    pairs: tuple[Pair, ...] = ()
    added: tuple[tuple[str, str], ...] = ()  # (wanted span, "first" | "last" | "line")
    removed: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The example as ``tasks show`` names it."""
        return "'" + self.text.replace("\n", " / ")[:_LABEL_CHARS] + "'"


def _path_like(span: str) -> bool:
    return " " not in span and bool(re.search(r"/|^\.\.?/|^[\w-]+\.[a-z]{1,5}$", span))


def _key(span: str) -> str:
    return re.sub(r"\W", "", span).lower()


def _shape(objected: str, wanted: str) -> tuple[str, str, str]:
    """The objected span as a regex whose shared digit run is captured (``MR\\s*(\\d+)``), the
    wanted span as the replacement keeping it (``!\\g<1>``), and the wanted shape (``!\\d+``);
    the last is empty when the two share no number."""
    shared = [d for d in re.findall(r"\d+", objected) if d in re.findall(r"\d+", wanted)]
    if not shared:
        return re.escape(objected), wanted.replace("\\", "\\\\"), ""
    digit = shared[0]
    head, _, tail = objected.partition(digit)
    spaced = [re.sub(r"\\ ", r"\\s*", re.escape(part)) for part in (head, tail)]
    w_head, _, w_tail = wanted.partition(digit)
    template = w_head.replace("\\", "\\\\") + r"\g<1>" + w_tail.replace("\\", "\\\\")
    return (
        spaced[0] + r"(\d+)" + spaced[1],
        template,
        re.escape(w_head) + r"\d+" + re.escape(w_tail),
    )


def _widened(objected: str, wanted: str, attempt: str) -> str:
    """An objected span inside a URL of the attempt stands for the whole URL when a path is
    wanted in its place ("don't hardcode github.com; a path like `../x.md`")."""
    if not _path_like(wanted):
        return objected
    for match in _URL_IN.finditer(attempt):
        url = match.group(0).rstrip(".,;:!?")
        if objected.lower() in url.lower():
            return url
    return objected


def _partner(objected: str, wanted: list[str]) -> str | None:
    """The wanted span of the same shape as ``objected``: the same name, the same number."""
    for w in wanted:
        if _key(w) == _key(objected):
            return w
    digits = set(re.findall(r"\d+", objected))
    for w in wanted:
        if digits & set(re.findall(r"\d+", w)):
            return w
    return None


def _beside(span: Span, said: Sequence[Span], attempt: str, lists: list[tuple[str, ...]]) -> bool:
    """Whether a span of the attempt is named for something after one the attempt lacks, in its
    clause, neither in a list with it nor of its shape ("under the `## Troubleshooting` heading
    as `###` subsections"): how the asked-for one is to be. What a correction replaces comes
    first ("drop the (#88) and end with `Refs: ENG-88`"), and is objected."""
    mine = _in_list(span.text, lists)
    return not span.against and any(
        other.clause == span.clause
        and other.quoted
        and not other.against
        and other.text.lower() not in attempt.lower()
        and not (mine and mine == _in_list(other.text, lists))
        and _partner(span.text, [other.text]) is None
        for other in said[: said.index(span)]
    )


def _classified(
    said: Sequence[Span], attempt: str, lists: list[tuple[str, ...]]
) -> tuple[list[str], list[str]]:
    """(objected, wanted): spans the attempt carries and those it lacks."""
    objected: list[str] = []
    wanted: list[str] = []
    carried = any(s.quoted and s.text.lower() in attempt.lower() for s in said)
    for span in said:
        if span.approved or (
            span.text.lower() in attempt.lower() and _beside(span, said, attempt, lists)
        ):
            continue
        if (span.shown or span.kept) and not span.against and span.text.lower() in attempt.lower():
            continue  # "backticks, like `API_URL`": an instance of the rule, not an objection
        if _path_like(span.text) and _only_in_urls(span, attempt):
            wanted.append(span.text)
        elif span.text in attempt:
            objected.append(span.text)
        elif span.quoted and span.text.lower() in attempt.lower():
            start = attempt.lower().index(span.text.lower())
            found = attempt[start : start + len(span.text)]
            objected.append(found)
            if not span.against and not _capitalised(found, span.text, attempt[:start]):
                wanted.append(span.text)  # case is the point (GitHub, not Github), unless the
                # words are refused in any case or differ only in a sentence's capital letter
        elif span.quoted and (not span.against or (span.negated_after and not carried)):
            wanted.append(span.text)  # negated only after it, and nothing quoted is in the
            # attempt: the negation is of something else ("end with `— Team` and nothing after")
    return objected, wanted


def _only_in_urls(span: Span, attempt: str) -> bool:
    """Whether a path said for something is in the attempt only as the tail of a full URL: the
    relative path the user asks for in that URL's place (`docs/install.md`), not a word of the
    attempt they object to."""
    inside = any(span.text.lower() in m.group(0).lower() for m in _URL_IN.finditer(attempt))
    return (
        not span.against and inside and span.text.lower() not in _URL_IN.sub(" ", attempt).lower()
    )


def _in_list(span: str, lists: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    return next((g for g in lists if span.lower() in (s.lower() for s in g)), ())


def _capitalised(found: str, said: str, before: str) -> bool:
    """Whether the attempt's ``found`` is the user's lower-case ``said`` capitalised only because
    it opens a sentence ("🚀 Терміново: ..." for «терміново»): no case the user asks for."""
    opens = not re.search(r"\w[^.!?\n]*$", before)
    return opens and found[:1].isupper() and said[:1].islower() and found[1:] == said[1:]


def _pairs(
    objected: list[str], wanted: list[str], attempt: str, lists: Sequence[tuple[str, ...]] = ()
) -> list[Pair]:
    out: list[Pair] = []
    free = list(wanted)
    for o in objected:
        w = _partner(o, free)
        mine = _in_list(o, lists)
        theirs = next((g for g in lists if g != mine and all(s in free for s in g)), ())
        if w is None and mine and len(theirs) == len(mine):  # "“e.g.,” and “i.e.,”; “for
            w = theirs[[s.lower() for s in mine].index(o.lower())]  # example” or “that is”"
        if w is None and len(objected) == 1 and len(free) == 1:
            w = free[0]
        if w is None:
            continue
        free.remove(w)
        whole = _widened(o, w, attempt)
        out.append(Pair(whole, w, *_shape(whole, w), said=o))
    headings = _HEADING_LINE.findall(attempt)
    for w in [w for w in free if re.match(r"#{1,6}\s+\S", w)]:
        level = len(w) - len(w.lstrip("#"))
        lines = [(len(h), f"{h} {t}") for h, t in headings if f"{h} {t}" != w]
        same = [line for n, line in lines if n == level] or [line for _, line in lines]
        if same:
            escaped = w.replace("\\", "\\\\")
            out.append(Pair(same[0], w, re.escape(same[0]), escaped, inferred=True))
    return out


def _where(span: str, correction: str) -> str:
    """Where the correction puts a wanted line: "last", "first", or anywhere ("line"). A sign
    inside the span ends no sentence (`#!/usr/bin/env bash`)."""
    masked = correction.replace(span, "\0" * len(span))
    for sentence in re.split(r"[.;!?\u3002]\s*", masked):
        if "\0" * len(span) in sentence:
            if LAST_WORDS.search(sentence):
                return "last"
            if FIRST_WORDS.search(sentence):
                return "first"
    return "line"


def _apply(
    attempt: str, pairs: list[Pair], added: list[tuple[str, str]], removed: list[str]
) -> str:
    text = attempt
    for pair in pairs:
        text = re.sub(pair.pattern, pair.template, text)
    for span in removed:
        text = re.sub(r"[ \t]{2,}", " ", text.replace(span, ""))
    for span, where in added:
        text = f"{span}\n{text}" if where == "first" else f"{text.rstrip()}\n{span}"
    return text


def _limited(text: str, correction: str, attempt: str) -> str:
    if not limits(correction):  # no unit word read: the number the attempt exceeds alone
        for what, n in measured_limits(correction, attempt):
            text = cut(text, what, n)
    for unit, n in limits(correction):
        if unit == "lines":
            text = "\n".join(text.splitlines()[:n])
        elif unit == "words":  # words as the check counts them: "l'app" is two
            found = list(re.finditer(r"\w+", text))
            text = text[: found[n - 1].end()] if len(found) > n else text
        elif len(text) > n:
            text = text[:n].rsplit(" ", 1)[0].rstrip(" ,;:-") if " " in text[:n] else text[:n]
    return text


def _relinked(correction: str, attempt: str, wanted: list[str]) -> list[Pair]:
    """The attempt's one full link, said to be relative, replaced by the one path the
    correction names ("no full https address; the relative `../api/reference.md`")."""
    paths = [w for w in wanted if _path_like(w)]
    links = _LINK_TARGET.findall(attempt)
    if len(paths) != 1 or len(set(links)) != 1:
        return []
    if not (RELATIVE_WORDS.search(correction) or _same_page(paths[0], links[0])):
        return []
    return [Pair(links[0], paths[0], *_shape(links[0], paths[0]), said=links[0])]


def _same_page(path: str, url: str) -> bool:
    """Whether a relative ``path`` names the page a full ``url`` links to, in any language's
    words: the same last names, extensions aside, as many as the path has (two at most):
    ``../guides/setup.md`` and ``https://docs.example.com/guides/setup.html``."""
    if "://" in path or path.startswith("/"):
        return False

    def tail(link: str) -> list[str]:
        names = [re.sub(r"\.[a-z]{1,5}$", "", n) for n in link.split("?")[0].split("/")]
        return [n.lower() for n in names if n not in ("", ".", "..")][-2:]

    mine, theirs = tail(path), tail(url.split("://", 1)[-1])
    return bool(mine) and theirs[-len(mine) :] == mine


def user_text(correction: str, attempt: str) -> TextExample | None:
    """The user's example answer: the attempt as the correction asks it to be."""
    lists = listed(correction)  # a span listed with one the attempt carries is objected alike
    objected, wanted = _classified(spans(correction), attempt, lists)
    objected += [w for w in code_words(correction, attempt) if w not in objected]
    wanted = [
        w
        for w in wanted
        if not any(_in_list(o, lists) == _in_list(w, lists) != () for o in objected)
    ]
    pairs = _pairs(objected, wanted, attempt, lists) or _relinked(correction, attempt, wanted)
    paired = {p.wanted for p in pairs} | {p.objected for p in pairs}
    paired |= {s for p in pairs for s in _in_list(p.wanted, lists)}  # its list's other spans
    paired |= {o for o in objected for p in pairs if o.lower() in p.objected.lower()}
    added = [(w, _where(w, correction)) for w in wanted if w not in paired and not _path_like(w)]
    removed = [o for o in objected if o not in paired]
    if EMOJI_WORDS.search(correction):
        removed += sorted({m.group(0) for m in EMOJI.finditer(attempt)})
    text = _apply(attempt, pairs, added, removed)
    if RELATIVE_WORDS.search(correction):
        text = re.sub(r"\]\(\s*https?://[^)\s]*/([^/)\s]+)\)", r"](\1)", text)
    text = ended(_limited(text, correction, attempt), correction)
    if text.strip() == attempt.strip() or not text.strip():
        return None
    return TextExample(text, tuple(pairs), tuple(added), tuple(removed))


def _pair_candidates(pair: Pair) -> list[tuple[str, str, bool]]:
    by_case = pair.objected.lower() == pair.wanted.lower()
    found = [("contains", pair.wanted, by_case)]
    if not pair.inferred:  # only what the user quoted back is forbidden
        found.append(("not_contains", pair.said or pair.objected, by_case))
    if pair.shape:  # a reference shape: every one like it
        found.append(("regex", rf"(?s)\A(?!.*{pair.pattern})", True))
        found.append(("regex", rf"(?<![\w!#]){pair.shape}", True))
    if _path_like(pair.wanted) and _URL_IN.fullmatch(pair.objected):
        found.append(("regex", LINKS_RELATIVE, True))
    heading = re.match(r"#{1,6}\s+(.+)", pair.wanted)
    if heading:  # a heading is asked for as one, not as any text that carries its marks
        found[0] = ("heading", heading.group(1).strip(), True)
    return found


def candidates(example: TextExample, correction: str, attempt: str) -> list[Check]:
    """The generic family of checks the example suggests, before holding."""
    found: list[tuple[str, str | int, bool]] = []
    for pair in example.pairs:
        found += _pair_candidates(pair)
    for span, where in example.added:
        heading = re.match(r"#{1,6}\s+(.+)", span)
        found.append(
            ("heading", heading.group(1).strip(), True) if heading else ("contains", span, False)
        )
        if where == "last":
            found.append(("regex", re.escape(span) + r"\s*\Z", True))
        elif where == "first":
            found.append(("starts_with", span, True))
    # emoji taken out are asked for as a class (no emoji), not one check per character
    found += [("not_contains", s, False) for s in example.removed if not EMOJI.fullmatch(s)]
    if EMOJI_WORDS.search(correction):
        found.append(("regex", _NO_EMOJI, True))
    if RELATIVE_WORDS.search(correction):
        found.append(("regex", LINKS_RELATIVE, True))
    found += [(k, v, True) for k, v in line_end_checks(correction)]
    for unit, n in limits(correction):
        found.append(
            ("max_chars", n, True)
            if unit == "chars"
            else _max_words(n)
            if unit == "words"
            else _max_lines(n)
        )
    if not limits(correction):
        found += [limit_check(what, n) for what, n in measured_limits(correction, attempt)]
    made = (check_or_none(kind=k, value=v, case_sensitive=sensitive) for k, v, sensitive in found)
    return [c for c in made if c is not None]


def _max_words(n: int) -> tuple[str, str, bool]:
    return "regex", rf"(?s)\A\W*(?:\w+\W+){{0,{n - 1}}}\w*\W*\Z", True


def _max_lines(n: int) -> tuple[str, str, bool]:
    return "regex", rf"\A(?:.*\n){{0,{n - 1}}}.*\Z", True


def held_text_checks(correction: str, attempt: str, acted: Sequence[ActionLike]) -> list[Check]:
    """The text checks a correction of an answer yields: candidates that fail on the attempt and
    pass on the user's example, each marked with that example. None for an attempt that ran
    commands or changed files (its corrections are about what it did)."""
    if any(a.kind in _ACTING for a in acted) or not attempt.strip():
        return []
    example = user_text(correction, attempt)
    if example is None:
        return []
    kept: list[Check] = []
    for check in candidates(example, correction, attempt):
        if rule_check(check, attempt)[0] or not rule_check(check, example.text)[0]:
            continue
        if "[REDACTED" in str(check.value):
            continue  # a rule about a secret would carry the secret's shape into prompts
        if all((c.kind, c.value) != (check.kind, check.value) for c in kept):
            kept.append(check.model_copy(update={"held_against": example.label}))
    return consistent(kept)
