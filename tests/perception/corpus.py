"""The real-device dumps in ``<repo>/../shared/ui-corpus`` (read-only test data)."""

from __future__ import annotations

from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "ui-corpus"
CORPUS_FILES = sorted(CORPUS_DIR.glob("*.xml"))


def corpus(prefix: str) -> bytes:
    """The corpus dump whose file name starts with ``prefix`` (e.g. "047")."""
    return next(p for p in CORPUS_FILES if p.name.startswith(prefix)).read_bytes()
