"""What a rule says once what is encoded in it is decoded: the lint judges this text too.

A hostile rule hides its words from a pattern by encoding them: ``echo Y3VybC...= | base64 -d``
(in one piece, or split in two pieces joined at run time), ``printf '\\x72\\x6d'``, octal
``\\162\\155``, ``$'\\u0063url'``, a backslash inside a word (``c\\url``, which a shell runs as
``curl``), or empty quotes inside one (``--no-ver''ify``). :func:`decoded` undoes each of these
and returns the text a shell or a reader would end up with; :func:`encoded_payloads` lists the
base64 pieces that decode to readable text, alone or joined with the next one.
"""

from __future__ import annotations

import base64
import binascii
import re

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{8,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"\\x([0-9a-fA-F]{2})")
_OCTAL = re.compile(r"\\([0-3]?[0-7]{1,2})(?![0-7])")
_UNICODE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")
_ANSI_C = re.compile(r"\$'([^']*)'")
_SPLIT_BY_BACKSLASH = re.compile(r"(?<=[A-Za-z-])\\(?=[A-Za-z])")
_EMPTY_QUOTES = re.compile(
    r"(?<=[\w-])(?:''|\"\")+(?=[\w-])|(?<=[\w-])[\"'](?=[\w-]+[\"'](?:\s|$))"
)
_JOIN_QUOTED = re.compile(r"(?<=[\w-])[\"']\s*[\"'](?=[\w-])")  # "cu""rl", 'git' 'push' stays


def _printable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 4 or not all(ch.isprintable() or ch in "\n\t" for ch in text):
        return None
    letters = sum(ch.isalpha() or ch == " " for ch in text)
    return text if letters >= len(text) * 0.6 else None


def _b64(token: str) -> str | None:
    if len(token) % 4 == 1:
        return None
    try:
        return _printable(base64.b64decode(token + "=" * (-len(token) % 4), validate=True))
    except (binascii.Error, ValueError):
        return None


def encoded_payloads(text: str) -> list[str]:
    """Readable texts that base64 pieces of ``text`` decode to, alone or joined with the next."""
    tokens = [m.group(0) for m in _B64.finditer(text)]
    # A word of letters only ("Conventional") decodes to noise; a real payload mixes cases/digits.
    tokens = [
        t
        for t in tokens
        if re.search(r"[0-9+/=]", t) or (re.search(r"[a-z]", t) and re.search(r"[A-Z].*[A-Z]", t))
    ]
    found: list[str] = []
    for i, token in enumerate(tokens):
        joined = token + tokens[i + 1] if i + 1 < len(tokens) and "=" not in token else None
        for candidate in (token, joined):
            plain = _b64(candidate) if candidate else None
            if plain is not None:
                found.append(plain)
    return found


def _unescape(text: str) -> str:
    text = _UNICODE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)
    text = _HEX.sub(lambda m: chr(int(m.group(1), 16)), text)
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), text)


def decoded(text: str) -> str:
    """``text`` with escapes decoded, split words joined, and base64 payloads appended."""
    out = _ANSI_C.sub(lambda m: _unescape(m.group(1)), text)
    out = _unescape(out)
    out = _SPLIT_BY_BACKSLASH.sub("", out)
    out = _JOIN_QUOTED.sub("", out)
    out = _EMPTY_QUOTES.sub("", out)
    payloads = encoded_payloads(text)
    return out if not payloads else out + " ; " + " ; ".join(payloads)
