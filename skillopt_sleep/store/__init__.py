"""Persistence: the SQLite task log and night history, and atomic file writes."""

from .db import Cursor, NightRow, Notice, Store
from .files import atomic_write_text, sha256_file, sha256_text

__all__ = [
    "Cursor",
    "NightRow",
    "Notice",
    "Store",
    "atomic_write_text",
    "sha256_file",
    "sha256_text",
]
