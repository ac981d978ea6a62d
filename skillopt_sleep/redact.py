"""Secret detection and redaction, applied before anything is stored, logged or staged.

``redact(text)`` replaces each secret with a typed placeholder such as ``[REDACTED:anthropic-key]``;
``find_secrets(text)`` lists what it would replace (used by the edit guards).

Why not a detector library: ``detect-secrets`` (Yelp) was measured for this job. It reports
secret *values* without positions, sometimes only a capture group (``ghp`` for a GitHub token, a
JWT without its signature), so redacting by value leaks the rest; it has no Anthropic key rule;
its ad-hoc line scan flags every plain word as "high entropy"; and it scans about 0.2 MB/s. The
rules below follow the provider formats that ``detect-secrets`` and ``gitleaks`` document, with
spans, and run at regex speed. Over-redaction is accepted: a false positive costs a little
readability, a false negative leaks a key.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from dataclasses import dataclass


def _keywords(*words: str) -> str:
    """A case-insensitive alternation that starts with a character set: Python's regex engine
    skips ahead on a leading set, which makes these rules ~3x faster than a plain ``(?i)(a|b)``."""
    firsts = "".join(sorted({w[0].lower() for w in words}))
    branches = "|".join(f"(?<=[{w[0].lower()}{w[0].upper()}]){w[1:]}" for w in words)
    return f"(?i:[{firsts}](?:{branches}))"


_PRIVATE_KEY = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
)
# The key name's tail is bounded ({0,64}): unbounded, every keyword inside a long run of word
# characters ("secretsecret...") rescans the rest of the run, which is quadratic.
# JSON-escaped text (a model's reply, a stored record) quotes with ``\"`` and breaks lines with ``\n``:
# a value ends there too, and its quote may carry the backslash.
_ASSIGN_HERE = (
    r"\\?[\"']?\s*(?::|=|:=|=>)\s*(?P<q>\\?[\"'`]?)"
    r"(?P<v>(?!\[REDACTED)(?:[^\s\"'`,;)}\\]|\\(?![\"'\\nrt]))"
)
_ASSIGN = r"[\w.\-]{0,64}" + _ASSIGN_HERE

# A name ending in PASS after a separator (``DB_PASS``, ``smtp.pass``, ``ADMIN-PASS``), then the
# assignment: ``BYPASS``, ``COMPASS``, ``PASS_COUNT`` and ``TESTS_PASSED`` are not passwords.
_NAMED_PASS = r"(?<=[A-Za-z0-9][_.\-])" + _keywords("pass") + r"(?![\w\-])" + _ASSIGN_HERE
# A secret given to a command as a flag's value: ``--password X``, ``--password=X``, ``--token X``,
# ``--api-key X`` (not ``--password-file``, ``--password-stdin``, ``--token-file``).
_FLAG_VALUE = r"(?:=|[ \t]+)[\"']?(?P<v>(?![\-\[])[^\s\"'`;|&<>)]{3,})"
_SECRET_FLAG = (
    r"(?<![\w\-])--(?:[a-z]+-){0,3}"
    + _keywords("password", "passwd", "token", "api-key", "apikey", "secret")
    + r"(?![\w\-])"
    + _FLAG_VALUE
)
# MySQL's clients take the password glued to ``-p`` (``mysql -u root -ps3cr3t``); a bare ``-p``
# asks for it. Only these programs: ``mkdir -p``, ``git log -p`` and ``ssh -p 22`` are no password.
_MYSQL_P = (
    r"(?<![\w\-])(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck)"
    r"(?![\w\-])[^\n;|&]{0,200}?(?<=\s)-p[\"']?(?P<v>[^\s\"'`;|&<>]{1,})"
)
# ``sshpass -p X`` and ``curl -u user:password`` (``docker run -u 1000:1000`` is a user id).
_SSHPASS_P = (
    r"(?<![\w\-])sshpass(?![\w\-])[^\n;|&]{0,200}?(?<=\s)-p\s*[\"']?(?P<v>[^\s\"'`;|&<>]{1,})"
)
_CURL_USER = (
    r"(?<![\w\-])curl(?![\w\-])[^\n;|&]{0,400}?(?<=\s)(?:-u|--user)(?:=|\s*)[\"']?"
    r"[^\s:\"']+:(?P<v>[^\s\"'`;|&<>]{1,})"
)

# ``Authorization: `` and ``Proxy-Authorization=`` (a header, a JSON or YAML key, a curl flag)
# up to the scheme; the credentials after the scheme run to a space, a quote or an escape.
_AUTH_HEADER = _keywords("authorization") + r"\\?[\"']?\s*[:=]\s*\\?[\"']?"
_CREDENTIALS = r"\s+(?P<v>(?!\[REDACTED)[^\s\"'`,;\\]{3,})"

# (kind, pattern, value group). Earlier rules win where matches overlap. Group 0 redacts the whole
# match; a named group redacts only the value and keeps the key name ("password = [REDACTED:...]").
# Patterns start with a literal where they can (fast search) and have no leading ``\b``: a key
# glued to other text ("xghp_...") is still a key.
_RULES: tuple[tuple[str, str, int | str], ...] = (
    # An unterminated block (an excerpt cut inside it) is redacted to the end of the text.
    ("private-key", _PRIVATE_KEY, 0),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{16,}", 0),
    ("openai-key", r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", 0),
    ("github-token", r"g(?:h[pousr]_[A-Za-z0-9]{20,}|ithub_pat_[A-Za-z0-9_]{20,})", 0),
    ("aws-access-key", r"A(?:KIA|SIA|BIA|CCA)[0-9A-Z]{16}(?![0-9A-Za-z])", 0),
    # Bot, user, app, refresh, config, client and cookie tokens; a rotating one is ``xoxe.xoxp-``.
    ("slack-token", r"(?:xoxe\.)?xox[abcdeoprs]-[A-Za-z0-9\-]{5,}", 0),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{16,}", 0),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}", 0),
    ("stripe-key", r"[sr]k_(?:live|test)_[0-9A-Za-z]{16,}", 0),
    ("gitlab-token", r"glpat-[0-9A-Za-z_\-]{20,}", 0),
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,}", 0),
    ("npm-token", r"npm_[A-Za-z0-9]{36}", 0),
    ("pypi-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", 0),
    ("sendgrid-key", r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}", 0),
    # Starts only where a base64url run starts: from every "eyJ" inside a run it is quadratic.
    (
        "jwt",
        r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        0,
    ),
    # The user may be empty ("redis://:pw@host"): the password is still one.
    ("url-password", r"://[^\s:/@\"']*:(?P<v>[^\s@/\"']{3,})@", "v"),
    ("azure-storage-key", r"(?:Account|SharedAccess)Key=(?P<v>[A-Za-z0-9+/]{16,}={0,2})", "v"),
    # An HTTP (or proxy) Authorization header's credentials, whatever their length or alphabet:
    # base64 or base64url, or a "user:password" pasted unencoded.
    ("basic-auth", _AUTH_HEADER + _keywords("basic") + _CREDENTIALS, "v"),
    ("authorization", _AUTH_HEADER + _keywords("bearer", "token", "apikey") + _CREDENTIALS, "v"),
    # A Docker config.json keeps "user:password" base64-encoded in an "auth" value.
    ("docker-auth", r"\"auth\"\s*:\s*\"(?P<v>[A-Za-z0-9+/]{6,}={0,2})\"", "v"),
    ("bearer-token", _keywords("bearer", "token") + r"\s+(?P<v>[A-Za-z0-9._~+/\-]{20,}=*)", "v"),
    ("password", _keywords("password", "passwd", "passphrase", "pwd") + _ASSIGN + "{3,})", "v"),
    ("password", _NAMED_PASS + "{3,})", "v"),
    ("password", _SECRET_FLAG, "v"),
    ("password", _MYSQL_P, "v"),
    ("password", _SSHPASS_P, "v"),
    ("password", _CURL_USER, "v"),
    (
        "secret",
        _keywords(
            "secret",
            "token",
            r"api[_\-]?key",
            "apikey",
            r"access[_\-]?key",
            r"auth[_\-]?key",
            "credential",
            r"private[_\-]?key",
            r"client[_\-]?secret",
        )
        + _ASSIGN
        + "{6,})",
        "v",
    ),
)
_COMPILED = tuple((kind, re.compile(pat), group) for kind, pat, group in _RULES)

# A rule runs only on text holding one of its literal needles (most text holds none; ``in`` is
# far cheaper than a regex scan). Needles of the case-insensitive rules are lower case.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "github-token": ("gh", "github_pat_"),
    "aws-access-key": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "google-api-key": ("AIza",),
    "stripe-key": ("k_live_", "k_test_"),
    "gitlab-token": ("glpat-",),
    "huggingface-token": ("hf_",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-",),
    "sendgrid-key": ("SG.",),
    "jwt": ("eyJ",),
    "url-password": ("://",),
    "azure-storage-key": ("AccountKey=", "SharedAccessKey="),
    "docker-auth": ('"auth"',),
}
# Rules that share a kind with another but not its needles, by pattern (lower case).
_PATTERN_NEEDLES: dict[str, tuple[str, ...]] = {
    _NAMED_PASS + "{3,})": ("pass",),
    _SECRET_FLAG: ("--",),
    _MYSQL_P: ("mysql", "mariadb"),
    _SSHPASS_P: ("sshpass",),
    _CURL_USER: ("curl",),
}
_NEEDLES_LOWER: dict[str, tuple[str, ...]] = {
    "bearer-token": ("bearer", "token"),
    "basic-auth": ("authorization",),
    "authorization": ("authorization",),
    "password": ("password", "passwd", "passphrase", "pwd"),
    "secret": ("secret", "token", "key", "credential"),
}

# Values in assignments that are references or placeholders, not secrets.
_NOT_A_VALUE = re.compile(
    r"^(?:\$|<|\{|%|os\.|process\.env|env\.|getenv|none$|null$|true$|false$|undefined$|"
    r"required$|optional$|string$|str$|\*+$|x+$|\.\.\.)",
    re.IGNORECASE,
)
# A key name that says its value is a path or a count, not the secret: ``PASSWORD_FILE=/run/...``,
# ``--password-file=~/.pw``, ``MAX_TOKENS=128000``.
_NOT_A_SECRET_NAME = re.compile(
    r"(?i)(?:files?|paths?|dirs?|tokens|length|count|size|ttl)[\\\"'\s]*(?::|=|:=|=>)\s*$"
)
_WORDY = re.compile(r"^[A-Za-z]+$")  # a plain word after "token:" is prose, not a secret
# A header's placeholder in docs and rules ("Bearer TOKEN", "Basic credentials"), not credentials.
_PLACEHOLDER = re.compile(r"^(?:[A-Z_]+|(?i:token|credentials?|secret|password|key|api[_-]?key))$")

_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/_\-]{24,}={0,2}(?![A-Za-z0-9+/=_\-])")
_ENTROPY_BITS = 4.2  # bits per character; random base64 is ~6, English identifiers ~3.5-4


@dataclass(frozen=True)
class SecretFinding:
    """One secret: its kind (the placeholder's type) and where it is in the text."""

    kind: str
    start: int
    end: int


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _looks_random(token: str) -> bool:
    body = token.rstrip("=")
    classes = (
        any(c.islower() for c in body),
        any(c.isupper() for c in body),
        any(c.isdigit() for c in body),
    )
    return all(classes) and shannon_entropy(body) >= _ENTROPY_BITS


def _applies(kind: str, pattern: str, text: str, lower: str) -> bool:
    by_pattern = _PATTERN_NEEDLES.get(pattern)
    if by_pattern is not None:
        return any(n in lower for n in by_pattern)
    needles = _NEEDLES.get(kind)
    if needles is not None:
        return any(n in text for n in needles)
    return any(n in lower for n in _NEEDLES_LOWER[kind])


def _rule_findings(text: str) -> list[tuple[int, SecretFinding]]:
    found: list[tuple[int, SecretFinding]] = []
    lower = text.lower()
    for rank, (kind, pattern, group) in enumerate(_COMPILED):
        if not _applies(kind, pattern.pattern, text, lower):
            continue
        for match in pattern.finditer(text):
            start, end = match.span(group)
            if group != 0:
                value = match.group(group)
                if _NOT_A_VALUE.match(value):
                    continue
                if "q" in pattern.groupindex and _NOT_A_SECRET_NAME.search(
                    text, match.start(), match.start("q")
                ):
                    continue
                if kind == "secret" and _WORDY.match(value) and len(value) < 20:
                    continue
                if kind in ("basic-auth", "authorization") and _PLACEHOLDER.match(value):
                    continue
            found.append((rank, SecretFinding(kind, start, end)))
    return found


_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_LINE = re.compile(r"[A-Za-z0-9+/=]+|[A-Za-z-]+: .*")  # base64, or a header ("Proc-Type: ...")
_PEM_MAX_LINES = 200  # an RSA-8192 key is ~100 lines


def _break_before(text: str, pos: int) -> tuple[int, int]:
    """(start, end) of the last line break before ``pos``: a newline, or an escaped one (``\\n``) in
    JSON-escaped text; (-1, 0) when there is none."""
    real = text.rfind("\n", 0, pos)
    escaped = text.rfind("\\n", 0, pos)
    if escaped > real:
        return escaped, escaped + 2
    return (real, real + 1) if real >= 0 else (-1, 0)


def _headless_keys(text: str) -> list[SecretFinding]:
    """Private keys whose ``BEGIN`` line was cut off (an excerpt kept only their end): the
    base64 lines just before an ``END ... PRIVATE KEY`` line, up to it. Each END looks back
    over at most a key's worth of lines, so this stays linear."""
    found: list[SecretFinding] = []
    for end in _PEM_END.finditer(text):
        start = end.start()
        for _ in range(_PEM_MAX_LINES):
            line_end, _ = _break_before(text, start)
            if line_end < 0:
                break
            line_start = _break_before(text, line_end)[1]
            line = text[line_start:line_end].strip().lstrip("…")
            if not line or not _PEM_LINE.fullmatch(line):
                break
            start = line_start
        if start == end.start() and start > 0:
            start = _break_before(text, start)[1]  # the text before END on its line
        found.append(SecretFinding("private-key", start, end.end()))
    return found


def find_secrets(text: str) -> list[SecretFinding]:
    """The secrets in ``text``, in order, without overlaps (the more specific rule wins)."""
    if not text:
        return []
    candidates = _rule_findings(text)
    if "PRIVATE KEY" in text:
        candidates += [(0, f) for f in _headless_keys(text)]
    rank_entropy = len(_COMPILED)
    for match in _CANDIDATE.finditer(text):
        if _looks_random(match.group(0)):
            candidates.append((rank_entropy, SecretFinding("high-entropy", *match.span())))
    candidates.sort(key=lambda item: (item[0], item[1].start))
    # Chosen spans never overlap, so sorted by start they are sorted by end too: a candidate
    # overlaps one only if it overlaps a neighbour (bisect keeps this n log n, not n squared).
    starts: list[int] = []
    chosen: list[SecretFinding] = []
    for _, finding in candidates:
        at = bisect.bisect_left(starts, finding.start)
        if at > 0 and chosen[at - 1].end > finding.start:
            continue
        if at < len(chosen) and chosen[at].start < finding.end:
            continue
        starts.insert(at, finding.start)
        chosen.insert(at, finding)
    return chosen


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``.

    Once a secret is replaced, the text around another can change enough for it to be found
    (a private key's end inside JSON-escaped text, whose lines are ``\\n``): so the text is
    redacted again while a pass still finds something (at most three passes).
    """
    for _ in range(3):
        done = _redact_once(text)
        if done == text:
            break
        text = done
    return text


def _redact_once(text: str) -> str:
    findings = find_secrets(text)
    if not findings:
        return text
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)
