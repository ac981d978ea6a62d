"""The manifest: one line per change the installation made, ``KIND<tab>VALUE<tab>EXTRA``.

Written as each step succeeds, so an install that stops half-way is still undone exactly. The
format is the one the shell installers wrote, so older installations uninstall too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    """One change: what kind, on what, and what is needed to undo it."""

    kind: str
    value: str
    extra: str = ""

    def line(self) -> str:
        return f"{self.kind}\t{self.value}\t{self.extra}\n"


class Manifest:
    """The manifest file; under a dry run it is read but never written."""

    def __init__(self, path: Path, *, dry: bool = False) -> None:
        self.path = path
        self.dry = dry

    def entries(self) -> list[Entry]:
        """Every entry, oldest first; none when there is no manifest."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines():
            kind, _, rest = line.partition("\t")
            value, _, extra = rest.partition("\t")
            if kind:
                out.append(Entry(kind, value, extra))
        return out

    def exists(self) -> bool:
        return self.path.is_file()

    def has(self, kind: str, value: str) -> bool:
        return any(e.kind == kind and e.value == value for e in self.entries())

    def find(self, kind: str) -> list[Entry]:
        return [e for e in self.entries() if e.kind == kind]

    def add(self, kind: str, value: str | Path, extra: str | Path = "") -> None:
        if self.dry:
            return
        with self.path.open("a", encoding="utf-8", newline="\n") as fh:
            fh.write(Entry(kind, str(value), str(extra)).line())

    def drop(self, kind: str, value: str) -> None:
        """Forget one change (it was undone, or is about to be redone)."""
        self.rewrite([e for e in self.entries() if (e.kind, e.value) != (kind, value)])

    def rewrite(self, entries: list[Entry]) -> None:
        if self.dry:
            return
        self.path.write_text("".join(e.line() for e in entries), encoding="utf-8", newline="\n")

    def remove(self) -> None:
        if not self.dry:
            self.path.unlink(missing_ok=True)
