"""A checkout test with a deliberately wrong expectation, to see a failure report.

Run it with ``fsm-runner run machines/examples/broken_expectation.py``: the run
ends FAILED in VERIFY, attributed to the verdict layer, and report.html shows
the failing step with its screenshots and the evidence the validator used.
"""

from __future__ import annotations

import attrs

from fsm_runner import Expect
from machines.demo_shop.flows import add_to_cart

_good = add_to_cart("en")
_last = _good.steps[-1]
# The cart really shows "Qty: 1"; this machine insists on 3 (a stale expectation after a product change).
_wrong = attrs.evolve(_last, expect=(Expect("visible", target="Qty: 3"),), timeout_s=3.0)

MACHINE = attrs.evolve(_good, name="broken_expectation_en", steps=(*_good.steps[:-1], _wrong))
