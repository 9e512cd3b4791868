"""Random raw input never breaks the phone: only documented errors, and the dump always parses."""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.errors import AckLostError
from adapters.sim import Faults, SimPhone
from tests.sim.dump_reader import PKG, FakeClock, centre

W, H = 1080, 2400

actions = st.one_of(
    st.tuples(st.just("tap"), st.integers(-50, W + 50), st.integers(-50, H + 50)),
    st.tuples(st.just("tap_clickable"), st.integers(0, 200)),
    st.tuples(st.just("swipe"), st.integers(0, W - 1), st.integers(0, H - 1), st.integers(0, W - 1),
              st.integers(0, H - 1), st.integers(1, 1500)),
    st.tuples(st.just("key"), st.sampled_from([3, 4, 26, 61, 66, 67, 82, 187, 224, 999])),
    st.tuples(st.just("text"), st.text(max_size=12)),
    st.tuples(st.just("ime"), st.text(max_size=12)),
    st.tuples(st.just("launch")),
    st.tuples(st.just("wait"), st.floats(0.0, 3.0)),
)


def apply(phone: SimPhone, clock: FakeClock, action: tuple[object, ...]) -> None:
    kind = action[0]
    if kind == "tap":
        phone.tap(int(action[1]), int(action[2]))  # type: ignore[call-overload]
    elif kind == "tap_clickable":
        xml = phone.ui_dump().xml
        assert xml is not None
        clickable = [n for n in ET.fromstring(xml).iter("node") if n.attrib["clickable"] == "true"]
        if clickable:
            phone.tap(*centre(clickable[int(action[1]) % len(clickable)]))  # type: ignore[call-overload]
    elif kind == "swipe":
        phone.swipe(*(int(v) for v in action[1:]))  # type: ignore[call-overload]
    elif kind == "key":
        phone.keyevent(int(action[1]))  # type: ignore[call-overload]
    elif kind == "text":
        try:
            phone.input_text(str(action[1]))
        except ValueError as err:
            assert "IllegalArgumentException" in str(err)
            assert any(not (" " <= ch <= "~" or ch in "\n\t") for ch in str(action[1]))
    elif kind == "ime":
        try:
            phone.ime_commit_text(str(action[1]))
        except ValueError as err:
            assert "ADB keyboard" in str(err)
    elif kind == "launch":
        phone.start_activity(PKG)
    else:
        clock.advance(float(action[1]))  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(actions, max_size=30), st.sampled_from(["en", "zh-CN"]), st.integers(0, 3))
def test_random_input_leaves_a_parsable_dump(steps: list[tuple[object, ...]], locale: str, seed: int) -> None:
    clock = FakeClock()
    faults = Faults(popup_rate=0.3, keyboard_occlusion=seed % 2 == 1, drop_tap_rate=0.1, duplicate_tap_rate=0.1,
                    lost_ack_rate=0.1, crash_rate=0.02)
    phone = SimPhone(now=clock, locale=locale, seed=seed, faults=faults, adb_keyboard=seed >= 2)
    if seed == 3:
        phone.settings_put("secure", "default_input_method", "com.android.adbkeyboard/.AdbIME")
    phone.start_activity(PKG)
    for action in steps:
        with contextlib.suppress(AckLostError):
            apply(phone, clock, action)
        xml = phone.ui_dump().xml
        assert xml is not None
        root = ET.fromstring(xml)
        assert root.tag == "hierarchy" and len(root) >= 2
        package, activity = phone.current_focus()
        assert package and activity
        assert phone.focused_text() is None or isinstance(phone.focused_text(), str)
    assert all(item.quantity >= 1 for item in phone.shop.cart)
    assert phone.screencap_png().startswith(b"\x89PNG")
