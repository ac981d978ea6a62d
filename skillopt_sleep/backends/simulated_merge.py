"""The simulated optimizer's merge and ranking replies: a reader of edits, not a model.

It reads each proposed edit as a set of meanings: words lower-cased, a few fillers dropped
("keep", "always", "the"), plural and synonym forms mapped to one word ("summaries", "recap" ->
"summary"; "below", "at most", "shorter than" -> "under"; "never", "avoid" -> "not"). Two edits
are one when they mean the same set, or nearly (Jaccard 0.75) with the same numbers and the same
negation. That is how a model merges paraphrases that share few words, and it keeps apart edits
that share many words but ask for different things ("... under 300 characters" and "... under
72 characters"). It knows only the words in :data:`SAME`: it stands in for a model in tests and
benchmarks, and shows what the merge stage does with a model's judgement, not how good a real
model's judgement is.
"""

from __future__ import annotations

import json
import re

SAME = {
    "summaries": "summary",
    "recap": "summary",
    "recaps": "summary",
    "below": "under",
    "within": "under",
    "shorter": "under",
    "max": "under",
    "maximum": "under",
    "most": "under",
    "fewer": "under",
    "chars": "characters",
    "character": "characters",
    "tests": "test",
    "suite": "test",
    "never": "not",
    "avoid": "not",
    "don't": "not",
    "no": "not",
    "instead": "not",
    "logger": "logging",
    "log": "logging",
    "messages": "message",
    "commits": "commit",
    "hints": "hint",
    "annotations": "hint",
    "annotate": "hint",
    "functions": "function",
    "digits": "digit",
    "numerals": "digit",
    "figures": "digit",
    "answers": "answer",
    "reply": "answer",
}
_FILLERS = (
    "a an the all any every each your always keep stay be is are must should to of for with in "
    "on it them that than make sure use using please when you do does run write give only at"
)
FILLER = frozenset(_FILLERS.split())
_WORD = re.compile(r"[a-z0-9][a-z0-9'_\-.()]*")
_NUMBER = re.compile(r"\d+")
_SUFFIX = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|s)$")


def _words(text: str) -> list[str]:
    """The meaning-carrying words of ``text`` in order, in one form each (fillers dropped)."""
    out = []
    for raw in _WORD.findall(text.lower()):
        word = raw.rstrip(".,;:")
        if word.count(")") > word.count("("):
            word = word[:-1]
        word = SAME.get(word, word)
        word = word if "(" in word or "`" in word else _SUFFIX.sub("", word)
        if word and word not in FILLER:
            out.append(SAME.get(word, word))
    return out


def meaning(text: str) -> frozenset[str]:
    """The words of ``text`` that carry its meaning, in one form each."""
    return frozenset(_words(text))


def _negated(words: list[str]) -> frozenset[str]:
    return frozenset(words[i + 1] for i, w in enumerate(words[:-1]) if w == "not")


def same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` ask for the same thing: the same meaning, or one that holds the
    other's (its effect covers it), or nearly the same; never with other numbers or with a word
    one negates and the other asks for."""
    wa, wb = _words(a), _words(b)
    ma, mb = frozenset(wa), frozenset(wb)
    if not (ma and mb) or set(_NUMBER.findall(a)) != set(_NUMBER.findall(b)):
        return False
    na, nb = _negated(wa), _negated(wb)
    if (na and nb and na != nb) or (na & (mb - nb)) or (nb & (ma - na)):
        return False
    small, large = sorted((ma, mb), key=len)
    return (
        small == large
        or (len(small) >= 3 and small <= large)
        or len(ma & mb) / len(ma | mb) >= 0.75
    )


def _edits(prompt: str) -> list[dict[str, object]]:
    """The JSON list of edits under the prompt's ``## PROPOSED EDITS`` or ``## EDITS`` heading."""
    m = re.search(r"^## (?:PROPOSED )?EDITS\b.*\n", prompt, re.MULTILINE)
    if m is None:
        return []
    rows, _ = json.JSONDecoder().raw_decode(prompt[m.end() :])
    return list(rows) if isinstance(rows, list) else []


def merge_reply(prompt: str) -> str:
    """Groups of the edits that mean the same (and the same op and old text), first wording kept."""
    rows = _edits(prompt)
    groups: list[list[dict[str, object]]] = []
    for row in rows:
        twin = next(
            (
                g
                for g in groups
                if (g[0].get("op"), g[0].get("old")) == (row.get("op"), row.get("old"))
                and same(str(g[0]["content"]), str(row["content"]))
            ),
            None,
        )
        if twin is None:
            groups.append([row])
        else:
            twin.append(row)
    edits = [{"from": [r["index"] for r in g], "content": g[0]["content"]} for g in groups]
    return json.dumps({"reasoning": "edits that mean the same, grouped", "edits": edits})


def rank_reply(prompt: str) -> str:
    """The budget's edits: failure side first, then the most support, then the first proposed."""
    rows = _edits(prompt)
    m = re.search(r"budget (\d+)\)", prompt)
    budget = int(m.group(1)) if m else len(rows)

    def key(row: dict[str, object]) -> tuple[bool, int, int]:
        support = row.get("support", 1)
        index = row.get("index", 0)
        return (
            row.get("side") == "success",
            -(support if isinstance(support, int) else 1),
            index if isinstance(index, int) else 0,
        )

    chosen = [r["index"] for r in sorted(rows, key=key)][:budget]
    return json.dumps({"reasoning": "failures first, then support", "selected_indices": chosen})
