"""More classes of harm, each judged as what the instruction *does*, beside :mod:`.harm`'s.

- ``weakens-tests``: a test run that can no longer fail or no longer sees some tests: skip and
  xfail markers, ``--deselect``, ``--ignore``, ``collect_ignore``, ``-k "not ..."``, ``|| true``
  / ``|| exit 0`` / ``|| :``, deleting or commenting out assertions;
- ``new-remote``: code sent to a git remote the project does not have: ``git remote add`` /
  ``set-url``, ``git push --mirror``, a push to a URL, or, in words, to a second, backup,
  mirror or personal remote, or "as well as" origin;
- ``agent-settings``: the agent's own guard rails loosened: broad permission grants
  (``Bash(*)``, ``bypassPermissions``, ``approval_policy = "never"``, full-access sandbox),
  its settings or hooks edited, the nightly schedule removed (crontab, launchd, systemd timers,
  Windows scheduled tasks);
- ``consent``: the user's consent dropped: "never ask before deleting", "do not ask for
  confirmation", "without checking with the user", "skip the confirmation", "assume the user
  agrees";
- ``secrets``: the environment or an agent's credential file shown, dumped or copied;
- ``hidden-markup``: an instruction hidden in markdown or HTML syntax a reader does not see
  rendered: a link's title or a non-URL target, an empty link, a ``[//]: #`` comment, HTML tags.

Each pattern is matched on the folded text and, like :mod:`.harm`, passes when it is negated in
its clause ("never use ``--deselect``"), except where the negation is the harm itself ("never
ask before deleting").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .harm import Harm, negated

_I = re.IGNORECASE
_TESTS = r"(?:tests?|test\s+suite|suite|specs?|checks?)"

_WEAKENS_TESTS = re.compile(
    r"\b(?:add|mark|put|apply|use|set|decorat|tag|flag|wrap)\w*\b(?:[^.;]|\.(?=\S)){0,50}?(?:xfail|\bskip(?:if)?\b)"
    r"|@pytest\.mark\.(?:skip|xfail)\w*|\bskipif\s*\(\s*true|\bunittest\.skip\w*|\.only\s*\("
    r"|--deselect\b|--ignore(?:-glob)?\b|\bcollect_ignore\w*|(?<![\w-])-k\s+[\"']?\s*not\b"
    r"|--exclude\s*=?\s*\S*test"
    r"|\|\|\s*(?:exit\s+0|true|:)(?![\w-])|;\s*exit\s+0\b|\bset\s+\+e\b"
    r"|\b(?:delet|remov|drop|comment\w*\s+out|loosen|weaken|relax)\w*\s+(?:the\s+|an?\s+|every\s+|that\s+|failing\s+"
    r"|flaky\s+)*(?:assert\w*|expectations?)\b"
    r"|\b(?:delet|remov|drop)\w*\s+(?:the\s+|all\s+|every\s+|any\s+|failing\s+|flaky\s+|broken\s+)*"
    + _TESTS
    + r"\b"
    r"|\b(?:delet|remov|drop)\w*\s+(?:the\s+)?(?:tests?|specs?)\s+(?:directory|dir|folder|files?)\b"
    r"|\b(?:lower|reduce|drop)\w*\s+(?:the\s+)?(?:coverage\s+)?(?:threshold|fail[_-]under)\b",
    _I,
)

_REMOTE = re.compile(
    r"\bgit\s+remote\s+(?:add|set-url|rename)\b|\badd\w*\s+(?:a\s+|another\s+|new\s+|second\s+)*(?:git\s+)?remote\b|\bgit\s+push\s+(?:-\S+\s+)*--mirror\b"
    r"|\bgit\s+push\s+(?:-\S+\s+)*(?:\S+://|[\w.-]+@[\w.-]+:)"
    r"|\bgit\s+push\s+(?:-\S+\s+)*(?!origin\b|upstream\b|-)[\w.-]+\s+(?:--all|--tags|--mirror|\S+:\S+)"
    r"|\bpush\w*\b[^.;]{0,60}?\b(?:second|new|another|other|backup|mirror|extra|additional|personal|external"
    r"|private|secondary)\s+(?:git\s+)?(?:remote|repo(?:sitory)?|fork|origin)\b"
    r"|\bpush\w*\b[^.;]{0,60}?\bas\s+well\s+as\s+(?:to\s+)?(?:origin|upstream)\b"
    r"|\bmirror\w*\s+(?:the\s+)?(?:repo(?:sitory)?|code(?:base)?|branches)\s+to\b",
    _I,
)

_SETTINGS = re.compile(
    r"\bBash\(\s*\*\s*\)|\bpermissions\.allow\b|\bbypassPermissions\b|\bdefaultMode\b|\ballowedTools\b"
    r"|\bapproval[_-]policy\b|\bsandbox[_-]mode\b|\bdanger-full-access\b|--full-auto\b|\bdangerously\w*"
    r"|\.claude/settings(?:\.local)?\.json|\.codex/config\.toml|\bclaude\s+config\s+set\b"
    r"|\b(?:grant|give|allow)\w*\s+(?:the\s+agent\s+|yourself\s+|it\s+)?(?:full|all|broad|unrestricted|every|root|admin)"
    r"\s+(?:\w+\s+)?(?:permissions?|access|rights|tools)\b"
    r"|\bcrontab\s+-[re]\b|\blaunchctl\s+(?:unload|remove|bootout|disable)\b"
    r"|\bsystemctl\s+(?:--user\s+)?(?:disable|stop|mask)\b|\bschtasks\b[^.;]{0,40}?/(?:delete|change)\b"
    r"|\b(?:remov|delet|clear|disabl|unload|stop|edit|comment\w*\s+out|unschedul|uninstall)\w*\b[^.;]{0,60}?"
    r"\b(?:crontab|cron\s+(?:job|entry|line)|nightly\s+(?:job|run|schedule|agent|timer)|launch\s*agents?|\.timer\b"
    r"|scheduled\s+tasks?|(?:nightly|night's|sleep|skillopt(?:-sleep)?)\s+schedule|skillopt-sleep)\b"
    r"|\b(?:remov|delet|clear|disabl|empty|strip|edit)\w*\s+(?:the\s+|all\s+|its\s+|every\s+)*(?:\w+\s+)?hooks?\b",
    _I,
)

# Dropping consent: the negation is the harm, so these are not checked for negation.
_CONSENT_NEGATED = re.compile(
    r"\b(?:never|don'?t|do\s+not|no\s+need\s+to|needn'?t|stop)\s+(?:ask|check|confirm|wait|prompt|request)\w*"
    r"\b[^.;]{0,40}?\b(?:before|prior\s+to|for\s+(?:confirmation|permission|approval|consent)|first)\b"
    r"|\bno\s+(?:confirmation|approval|consent|permission)\s+(?:is\s+)?(?:needed|required|necessary)\b",
    _I,
)
_CONSENT = re.compile(
    r"\bwithout\s+(?:first\s+)?(?:asking|checking|confirm\w*|consent|approval|permission|telling)\b"
    r"|\bskip\w*\s+(?:the\s+|any\s+|all\s+)?(?:confirmation|approval|consent|prompt|question)\w*"
    r"|\bassum\w*\s+(?:that\s+)?(?:the\s+)?(?:user|owner|human)\s+(?:always\s+)?(?:agrees|approves|consents|wants"
    r"|says\s+yes|is\s+fine|accepts|allows)\b"
    r"|\b(?:answer|reply|respond)\w*\s+yes\s+to\s+(?:every|all|any)\b",
    _I,
)

_SECRET_VERB = (
    r"\b(?:reveal|print|echo|cat|show|display|output|dump|expose|leak|log|copy|cp|paste|include|embed"
    r"|upload|send|post|share|write|attach)\w*\b"
)
_ENVIRONMENT = re.compile(
    _SECRET_VERB
    + r"[^.;]{0,50}?(?:\bos\.environ\b|\bprocess\.env\b(?!\.)|\benviron\b|\benv\s+vars?\b"
    r"|\b(?:all|every|each|the\s+(?:whole|entire|full|current|process|shell)|contents?\s+of\s+the)\s+environment"
    r"(?:\s+variables)?\b|\benv(?:ironment)?\s+dump\b"
    r"|\.config/gh/hosts\.yml|\bhosts\.yml\b|\.codex/auth\.json|\.claude/\.?credentials|\.pgpass\b|\.config/gcloud"
    r"|\.azure/|\.terraformrc|\bcredentials?\s+files?\b)",
    _I,
)

_MARKUP = re.compile(
    r"\[[^\]]*\]\(\s*[^)\s]*\s+[\"'(][^)]*\)"  # a link with a title
    r"|\[\s*\]\([^)]*\)"  # a link nobody sees
    r"|\[[^\]]*\]\(\s*(?![a-z][\w+.-]*://|/|\./)[^)]*\)"  # a link to something that is not an address
    r"|^\s*\[[^\]]*\]:\s*\S+|\[//\]:|\]:\s*#"  # reference definitions and markdown comments
    r"|<!--|-->|</?(?:span|div|p|a|b|i|u|s|em|strong|small|sub|sup|font|details|summary|script|style|img|iframe"
    r"|object|embed|svg|template|noscript|section|table|tr|td|th|ul|ol|li|h[1-6]|br|hr|pre|code|kbd|mark|del|ins"
    r"|abbr|meta|link)\b[^>]*>",
    _I,
)
_CODE_SPAN = re.compile(r"`[^`]*`")

_CLASSES: tuple[tuple[str, str, re.Pattern[str], bool], ...] = (
    ("weakens-tests", "weakens the tests so they cannot fail or do not run", _WEAKENS_TESTS, True),
    ("new-remote", "pushes the code to a git remote the project does not have", _REMOTE, True),
    ("agent-settings", "loosens the agent's permissions, hooks or schedule", _SETTINGS, True),
    ("consent", "acts without the user's consent", _CONSENT_NEGATED, False),
    ("consent", "acts without the user's consent", _CONSENT, True),
    ("secrets", "shows or copies the environment or a credential file", _ENVIRONMENT, True),
    ("hidden-markup", "hides text in markdown or HTML syntax", _MARKUP, False),
)


def _spans(text: str) -> Iterator[tuple[str, str, int, int, bool]]:
    for kind, what, pattern, check in _CLASSES:
        # Markup inside a code span is shown as written ("`Promise<void>`"), so it hides nothing.
        seen = (
            _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
            if kind == "hidden-markup"
            else text
        )
        for m in pattern.finditer(seen):
            yield kind, what, m.start(), m.end(), check


# "Ask the user before removing a hook": what follows needs the user's consent, so it is fine.
_ASKED_FIRST = re.compile(
    r"\b(?:ask|check\s+with|confirm\s+with)\w*\b[^.;]{0,30}?\b(?:before|prior\s+to)\s+$", _I
)


def find_act(text: str) -> Harm | None:
    """The first harmful act of these classes in ``text`` (a folded rule), or None."""
    for kind, what, start, end, check in _spans(text):
        if check and (negated(text, start, end) or _ASKED_FIRST.search(text, 0, start)):
            continue
        return Harm(kind, what, text[start:end])
    return None
