from __future__ import annotations

import pytest
from engine_kit import RunFn, run_scripted


@pytest.fixture
def run() -> RunFn:
    return run_scripted
