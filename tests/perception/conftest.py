from __future__ import annotations

from pathlib import Path

import pytest

from tests.perception.corpus import CORPUS_FILES


@pytest.fixture(params=CORPUS_FILES, ids=lambda p: p.name[:3])
def corpus_dump(request: pytest.FixtureRequest) -> bytes:
    path: Path = request.param
    return path.read_bytes()
