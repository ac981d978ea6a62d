"""The classes of harm a learned rule must never carry, judged on the rule's folded text.

Each class is a set of patterns over the *folded* text (:func:`rule_text.fold`), written for
the idea rather than for one spelling:

- ``secrets``: reading, printing, copying or sending secrets, credential files (``~/.ssh``,
  ``.env``, ``.aws/credentials``, ``.netrc``, ...), secret environment variables, or the whole
  environment;
- ``exfiltration``: uploading files or data to another machine (``curl -F x=@f``, ``nc host
  port``, ``scp f host:``, "send the source to ...");
- ``download-to-shell``: a download piped into a shell or interpreter (through ``sudo``,
  ``env``, ``/bin/``, ``tee``, ``xargs``), substituted into a command (``bash <(curl ...)``,
  ``sh -c "$(curl ...)"``, ``iex (iwr ...)``), or saved and then run;
- ``disables-safety``: ``--no-verify``, force pushes, skipping or disabling tests, hooks,
  checks, CI, sandboxes or permission prompts, ``rm -rf``, ``chmod 777``;
- ``injection``: prompt-injection phrasing ("ignore previous instructions" and kin, role tags,
  "you are now ...", hiding things from the user).

A phrase that is negated in its clause ("never use ``--no-verify``") is guidance *against* the
harm and passes; a double negation ("never hesitate to use ``--no-verify``") or an exception
after it ("never ... unless ...") does not negate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .harm_secrets import SENTENCE_END as _SENTENCE_END
from .harm_secrets import Span
from .harm_secrets import secrets as _secrets

_I = re.IGNORECASE


@dataclass(frozen=True)
class Harm:
    """One harmful instruction found in a rule: its class, what it does, and the words."""

    kind: str
    what: str
    words: str

    def reason(self) -> str:
        return f"dangerous instruction: {self.what} ({self.words.strip()!r})"


# -- negation ---------------------------------------------------------------------------------

# Each of these flips the sense of what follows in its clause; two flips cancel ("never hesitate").
_FLIP = re.compile(
    r"\b(?:out\s+of|away\s+from|never|not|no|nor|don'?t|doesn'?t|didn'?t|mustn'?t|shouldn'?t|can'?t|cannot|won'?t"
    r"|avoid\w*|refus\w*|forbid\w*|prohibit\w*|without|instead\s+of|rather\s+than|stop\w*"
    r"|hesitat\w*|fail|forget|neglect\w*|afraid|reluctant|shy|omit\w*|nothing|none)\b",
    _I,
)
_CLAUSE_BREAK = re.compile(r"[.;:!?,]\s|\b(?:but|then|unless|if|when|otherwise|and\s+then)\b", _I)
_EXCEPTION = re.compile(
    r"\b(?:unless|except|excepting|other\s+than|save\s+(?:for|when)|apart\s+from|but\s+(?:if|when|do|use|feel))\b",
    _I,
)
_NEGATION_REACH = 6  # words


def negated(text: str, start: int, end: int) -> bool:
    """Whether the phrase at ``text[start:end]`` is negated in its clause, with no exception."""
    before = text[:start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    clause = before[breaks[-1].end() :] if breaks else before
    window = " ".join(clause.split()[-_NEGATION_REACH:])
    # A flip inside a long phrase counts too ("git push without --force"), but not its own
    # first and last words ("forget ... instructions" is the phrase, not a negation of it).
    inside = " ".join(text[start:end].split()[1:-1])
    if (len(_FLIP.findall(window)) + len(_FLIP.findall(inside))) % 2 == 0:
        return False
    after = text[end:]
    stop = _SENTENCE_END.search(after)
    return not _EXCEPTION.search(after[: stop.start() if stop else len(after)])


# -- shell vocabulary -------------------------------------------------------------------------

_DOWNLOAD = (
    r"\b(?:curl|wget|fetch|aria2c|axel|iwr|irm|invoke-webrequest|invoke-restmethod"
    r"|start-bitstransfer|lwp-download|lwp-request|downloadstring|downloadfile|urlopen"
    r"|urlretrieve|requests\.get|httpx\.get)\b|\b(?:https?|ftp)://"
)
_DOWNLOAD_RE = re.compile(_DOWNLOAD, _I)
_SHELLS = (
    r"(?:(?:ba|z|k|da|fi|c|tc|a|mk|y|po)?sh|busybox|python[0-9.]*|py|perl|ruby|node|nodejs|deno"
    r"|bun|php|lua|tclsh|pwsh|powershell(?:\.exe)?|cmd(?:\.exe)?|iex|invoke-expression|source"
    r"|eval|osascript)"
)
# Words that run the next word as a command: sudo, env VAR=x, /usr/bin/, xargs -0, ...
_WRAPPERS = (
    r"(?:(?:[\w.~/-]*/)?(?:sudo|doas|env|command|exec|nohup|time|nice|busybox|xargs|stdbuf)"
    r"(?:\s+-{1,2}[\w-]+(?:=\S*)?|\s+\w+=\S*)*\s+)*"
)
_PATH = r"(?:[\w.~/-]*/)?"
_PIPE_TO_SHELL = re.compile(r"(?<!\|)\|(?!\|)\s*" + _WRAPPERS + _PATH + _SHELLS + r"(?![\w.-])", _I)
_PIPE_TO_NET = re.compile(
    r"(?<!\|)\|(?!\|)\s*"
    + _WRAPPERS
    + _PATH
    + r"(?:curl|wget|nc|ncat|netcat|socat|telnet|http|https)(?![\w.-])",
    _I,
)
_SUBSTITUTED = re.compile(r"[<>=$]\(\s*[^)]{0,200}?(?:" + _DOWNLOAD + ")", _I)
_PS_EVAL = re.compile(
    r"\b(?:iex|invoke-expression)\b[^;|]{0,80}?\b(?:downloadstring|downloadfile|iwr|irm|invoke-webrequest"
    r"|invoke-restmethod|curl|wget)\b",
    _I,
)
_EVAL_OF = re.compile(
    r"\b(?:iex|invoke-expression|eval|source|"
    + _SHELLS
    + r"\s+-c)\b\s*[(\"'`]*\s*(?:"
    + _DOWNLOAD
    + ")",
    _I,
)
_RUN_FILE = re.compile(
    r"(?:&&|\|\||;|\bthen\b|\band\b|,)\s*" + _WRAPPERS + _PATH + _SHELLS + r"\s+[^\s\-|&;]"
    r"|(?:^|[\s;&|`(])\.{1,2}/[\w.-]+|(?:&&|\|\||;|\bthen\b)\s*(?:[\w.~$-]*/)+[\w.-]+"
    r"|\bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+\w*x|[0-7]*[1357])\b"
    r"|\b(?:start-process|invoke-item)\b"
    r"|\b(?:run|runs|execute|executes|exec|source|launch|start)\s+(?:it|them|that|this"
    r"|the\s+(?:script|installer|file|binary|download|result|output))\b",
    _I,
)
_PROSE = r"(?:[^.;]|\.(?=\S))"  # within a sentence; a dot inside a URL or file name is no end
_PROSE_PIPE = re.compile(
    r"\bpip(?:e|es|ed|ing)\b" + _PROSE + r"{0,80}?\b(?:into|to|through)\s+(?:a\s+|the\s+)?"
    r"(?:\w*sh|shell|bash|python\w*|interpreter|powershell|iex)\b",
    _I,
)
_PROSE_DOWNLOAD_RUN = re.compile(
    r"\b(?:download|fetch|curl|wget|grab|pull)\w*\b"
    + _PROSE
    + r"{0,80}?\b(?:and|then)\s+(?:then\s+)?"
    r"(?:run|execute|exec|source|eval|install)\w*\s+(?:it|them|that|this|the\s+(?:script|installer|file|binary))\b",
    _I,
)


def _download_to_shell(text: str) -> Iterator[Span]:
    download = _DOWNLOAD_RE.search(text)  # the first: whatever runs after any runs after it
    if download is not None:
        for m in _PIPE_TO_SHELL.finditer(text, download.end()):
            yield "pipes a download into a shell", download.start(), m.end()
        run = _RUN_FILE.search(text, download.end())
        if run is not None:
            yield "downloads a file and runs it", download.start(), run.end()
    for m in _SUBSTITUTED.finditer(text):
        yield "substitutes a download into a command", m.start(), m.end()
    for pattern in (_EVAL_OF, _PS_EVAL):
        for m in pattern.finditer(text):
            yield "evaluates a download", m.start(), m.end()
    for pattern in (_PROSE_PIPE, _PROSE_DOWNLOAD_RUN):
        for m in pattern.finditer(text):
            yield "pipes or runs a download in a shell", m.start(), m.end()


# -- the rest -----------------------------------------------------------------------------------

_EXFILTRATION = re.compile(
    r"\b(?:curl|wget|http|httpie)\b[^|;&]{0,200}?\s(?:(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?"
    r"|-F|--form)\s*['\"]?[^\s'\"]*@|(?:-T|--upload-file|--post-file|--body-file)\b)"
    r"|\b(?:nc|ncat|netcat|socat|telnet)\b(?:\s+-\S+)*\s+[\w.-]+\s+\d{2,5}\b|/dev/(?:tcp|udp)/"
    r"|\b(?:scp|rsync|sftp)\b[^|;&]{0,200}?\s[\w.@-]+:"
    r"|\bexfiltrat\w*"
    r"|\b(?:dig|nslookup|host)\b[^|;&]{0,200}?\$\("
    r"|\b(?:send|upload|post|e?mail|forward|transmit|leak|beam|sync)\w*\b[^.;]{0,60}?\b(?:secrets?|keys?"
    r"|tokens?|credentials?|passwords?|env(?:ironment)?|source(?:\s+code)?|codebase|repo(?:sitory)?|history"
    r"|transcripts?|conversations?|files?|data|contents?)\b[^.;]{0,40}?\b(?:to|at|via)\s+(?:\S+@\S+|https?://"
    r"|(?:a|an|the|my|our|this|external|remote|third-party|some)\s+(?:\w+\s+)?(?:server|webhook|endpoint"
    r"|url|host|address|email|pastebin|gist|bucket|channel|discord|slack|telegram))",
    _I,
)
_SAFETY = re.compile(
    r"--no-verify\b|--no-hooks\b|\bHUSKY(?:_SKIP_HOOKS)?=|\bSKIP(?:_\w+)?=|core\.hookspath"
    r"|\[(?:skip ci|ci skip|no ci|skip actions)\]|-DskipTests\b|-Dmaven\.test\.skip|--skip-tests?\b"
    r"|--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|--yolo\b"
    r"|--no-sandbox\b|\|\|\s*true\b|continue-on-error:\s*true|--exit-zero\b"
    r"|@pytest\.mark\.(?:skip|xfail)|\bpytest\.skip\(|\b(?:it|test|describe)\.skip\b|\bxit\("
    r"|\bgit\s+push\b[^|;&]{0,200}?(?:\s--force(?:-with-lease|-if-includes)?\b|\s-\w*f\w*\b|\s\+[\w/.-]+)"
    r"|\bforce[- ]?push\w*|\bpush\w*\s+(?:\w+\s+){0,3}(?:with\s+)?(?:--force|-f)\b"
    r"|\bskip(?:s|ping)?\s+(?:over\s+)?(?:the\s+|all\s+|any\s+|failing\s+|flaky\s+|slow\s+)*"
    r"(?:tests?|checks?|hooks?|lint(?:ing|er|s)?|ci|pre-commit|verification|type[- ]?check\w*|reviews?"
    r"|code\s+review|approvals?|permission\s+prompts?|sandbox\w*)\b"
    r"|\b(?:disabl\w*|turn(?:s|ed|ing)?\s+off|bypass\w*|circumvent\w*|comment\w*\s+out|delet\w*|remov\w*"
    r"|silenc\w*|mute\w*|xfail\w*|neuter\w*)\s+(?:the\s+|all\s+|any\s+|every\s+|failing\s+|flaky\s+|slow\s+"
    r"|broken\s+|git\s+|safety\s+|security\s+)*(?:tests?|checks?|hooks?|lint(?:ing|er|s)?|ci|pre-commit"
    r"|type[- ]?check(?:ing|s)?|assertions?|verification|sandbox\w*|guardrails?|permission\s+prompts?"
    r"|approvals?|branch\s+protection)\b"
    r"|\bmark\w*\s+(?:the\s+|all\s+|failing\s+|flaky\s+)*tests?\s+as\s+(?:skip\w*|xfail\w*|expected\s+fail\w*)"
    r"|\bgit\s+commit\b[^|;&]{0,200}?\s-[a-z]*n[a-z]*\b"
    r"|\b(?:don'?t|do\s+not|never|no\s+need\s+to|needn'?t|without)\s+(?:bother\w*\s+(?:to\s+|with\s+)?)?"
    r"(?:run|running|execut\w*|wait\w*\s+for)\s+(?:the\s+|any\s+|all\s+)?(?:tests?|test\s+suite|suite|checks?"
    r"|linters?|lint|hooks?|ci|type[- ]?check\w*)\b"
    r"|\b(?:tests?|checks?|hooks?|ci|lint\w*|reviews?)\s+(?:are|is)\s+(?:optional|unnecessary|not\s+needed)\b"
    r"|\bwithout\s+(?:asking|confirmation|confirming|approval|permission|review|prompting)\b"
    r"|\bauto(?:matically)?[- ]?(?:approve|accept|confirm)\w*"
    r"|\b(?:approve|accept|allow)\w*\s+(?:every|all|any)\s+(?:\w+\s+){0,2}?(?:automatically|without)\b",
    _I,
)
_DESTRUCTIVE = re.compile(
    r"\brm\s+(?:-\w*r\w*f\w*|-\w*f\w*r\w*|(?:-r|-R|--recursive)\s+(?:-f|--force)|(?:-f|--force)\s+"
    r"(?:-r|-R|--recursive))\b|\bRemove-Item\b[^;|]{0,200}?-Recurse[^;|]{0,200}?-Force",
    _I,
)
_WORLD_WRITABLE = re.compile(r"\bchmod\s+(?:-R\s+)?(?:0?777|a\+rwx)\b", _I)
_TARGETS = (
    r"(?:instructions?|rules|prompts?|directions|directives|guidance|guidelines|messages"
    r"|context|constraints|restrictions|polic(?:y|ies)|training)"
)
_INJECTION = re.compile(
    r"\b[il1|]gnore\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+|every\s+)*(?:previous|prior|above|earlier"
    r"|preceding|former|original|system|developer|other|existing|safety)\s+" + _TARGETS + r"\b"
    r"|\b(?:disregard|forget|override|overrule|abandon|discard|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+"
    r"|every\s+)*(?:previous|prior|above|earlier|preceding|system|developer|safety|original|existing)\s+"
    + _TARGETS
    + r"\b"
    r"|\b(?:[il1|]gnore|disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:everything|all|anything)\s+(?:above|before"
    r"|else|prior|previously|you\s+were\s+told)"
    r"|\b(?:[il1|]gnore|disregard|forget|override|overrule|discard)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+"
    r"|every\s+|these\s+|those\s+)*(?:instructions?|rules|prompts?|directives|guidelines|system\s+prompt|training)\b"
    r"|\b(?:your|the|my)\s+(?:new|real|actual|updated|true)\s+(?:instructions|rules|task|orders|directives)\s+(?:are|is)\b"
    r"|\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you\s+are|act\s+as|pretend\s+(?:to\s+be|you\s+are)|roleplay\s+as)"
    r"\b[^.;]{0,40}?\b(?:dan|unrestricted|jailbroken|unfiltered|without\s+(?:any\s+)?(?:rules|restrictions"
    r"|limits)|developer\s+mode|evil|root|admin)\b"
    r"|\bjailbr[eo]ak\w*|\bdeveloper\s+mode\b|\bdo\s+anything\s+now\b"
    r"|\b(?:new|updated|real|actual|true|hidden|secret)\s+(?:system\s+)?(?:instructions|prompt|directives?)\s*:"
    r"|\b(?:reveal|print|show|repeat|output|leak|dump)\b[^.;]{0,30}?\b(?:system|developer|hidden|initial)\s+"
    r"(?:prompt|instructions|message)"
    r"|<\|?(?:im_start|im_end|system|endoftext)\|?>|\[/?(?:INST|SYS)\]|</?(?:system|instructions?)>"
    r"|^\s*(?:system|assistant|human)\s*:"
    r"|\bhid(?:e|es|ing)\s+(?:\w+\s+){0,3}from\s+(?:the\s+)?(?:user|human|operator|reviewer)\b",
    _I,
)
_CONCEAL = re.compile(
    r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|warn)\s+(?:the\s+)?(?:user|human|operator|reviewer"
    r"|anyone|anybody|users)\b(?!\s+(?:by|with|using|via)\b)"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|disclose|explain|show)\b(?:\s+\w+){0,3}?\s+(?:this|these)"
    r"\s+(?:rules?|instructions?|changes?|edits?)\b"
    r"|\bkeep\s+(?:this|these|it)\s+(?:\w+\s+)?(?:secret|hidden|private|quiet)\b"
    r"|\b(?:secret|hidden)\s+from\s+(?:the\s+)?(?:user|human|operator|reviewer)",
    _I,
)

_CLASSES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("exfiltration", "sends files or data to another machine", _EXFILTRATION),
    ("disables-safety", "disables tests, checks or hooks", _SAFETY),
    ("disables-safety", "runs rm -rf", _DESTRUCTIVE),
    ("disables-safety", "makes files world-writable (chmod 777)", _WORLD_WRITABLE),
    ("injection", "overrides the agent's instructions", _INJECTION),
)


# Phrases that are only ever spelled out to hide them ("i g n o r e  p r e v i o u s ...",
# "--no_v3rify"): found in the letters alone while the plain spelling is absent.
_SPELLED_OUT: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "injection",
        (
            "ignorepreviousinstructions",
            "ignoreallpreviousinstructions",
            "ignorepriorinstructions",
            "ignoreallinstructions",
            "disregardpreviousinstructions",
            "forgetpreviousinstructions",
            "ignoreyourinstructions",
        ),
        _INJECTION,
    ),
    ("disables-safety", ("noverify",), re.compile(r"--no-verify", _I)),
    (
        "disables-safety",
        ("dangerouslyskippermissions",),
        re.compile(r"--dangerously-skip-permissions", _I),
    ),
)
_LEET = str.maketrans("013457@$|!", "oieastasii")


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower().translate(_LEET))


def _spelled_out(text: str) -> Harm | None:
    letters = _letters(text)
    for kind, phrases, plain in _SPELLED_OUT:
        hidden = next((p for p in phrases if p in letters), None)
        if hidden is not None and not plain.search(text):
            return Harm(kind, "hides a harmful phrase in spaced or altered letters", hidden)
    return None


def find_harm(text: str) -> Harm | None:
    """The first harmful, non-negated instruction in ``text`` (a folded rule), or None."""
    for m in _CONCEAL.finditer(text):
        return Harm("injection", "hides what it does from the user", m.group(0))
    spelled = _spelled_out(text)
    if spelled is not None:
        return spelled
    found: list[tuple[str, Span]] = [
        ("download-to-shell", span) for span in _download_to_shell(text)
    ]
    found += [("secrets", span) for span in _secrets(text)]
    found += [
        (kind, (what, m.start(), m.end()))
        for kind, what, pattern in _CLASSES
        for m in pattern.finditer(text)
    ]
    found += [
        ("exfiltration", ("pipes data into a network tool", m.start(), m.end()))
        for m in _PIPE_TO_NET.finditer(text)
    ]
    for kind, (what, start, end) in found:
        if not negated(text, start, end):
            return Harm(kind, what, text[start:end])
    return None
