"""Persistence: the SQLite task log and night history, and atomic file writes."""

from .db import Store
from .files import atomic_write_text, sha256_file, sha256_text
from .rows import Cursor, NightRow, Notice

__all__ = [
    "Cursor",
    "NightRow",
    "Notice",
    "Store",
    "atomic_write_text",
    "sha256_file",
    "sha256_text",
]
