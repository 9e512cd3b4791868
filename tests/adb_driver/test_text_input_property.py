"""Any text typed through the driver arrives exactly, and nothing in it ever runs on the device."""

from __future__ import annotations

import asyncio

import pytest
from adbkit import AdbServer
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adapters.adb import TRANSPORT_NAMES, AdbDevice
from adapters.sim import DEMO_SHOP_PACKAGE
from adb_driver.conftest import Rig, make_rig, stop_rig
from adb_driver.screen_nodes import center, text_of

pytestmark = pytest.mark.adb

CANARY_FILE = "/sdcard/pwned"
CANARY_SETTING = "pwned"
#: Each would leave a canary behind if any part of it reached the shell as syntax.
PAYLOADS = [
    f"$(echo 1 > {CANARY_FILE})",
    f"`settings put global {CANARY_SETTING} 1`",
    f"; settings put global {CANARY_SETTING} 1",
    f"' ; echo 1 > {CANARY_FILE} ; '",
    f'" && settings put global {CANARY_SETTING} 1 && "',
    f"\\'; settings put global {CANARY_SETTING} 1 #",
    f"| settings put global {CANARY_SETTING} 1",
    f"\nsettings put global {CANARY_SETTING} 1\n",
    f"%s$(echo 1 >{CANARY_FILE})%s",
]

# Surrogates cannot be encoded, other control characters and non-characters cannot live in XML.
any_char = st.characters(exclude_categories=("Cs", "Cc", "Cn")) | st.just("\n")
texts = st.one_of(
    st.text(any_char, min_size=1, max_size=16),
    st.sampled_from(PAYLOADS),
    st.tuples(st.text(any_char, max_size=6), st.sampled_from(PAYLOADS)).map("".join),
)


def canaries_untouched(rig: Rig) -> bool:
    return rig.phone.settings_get("global", CANARY_SETTING) is None and CANARY_FILE not in set(rig.daemon.fs)


async def focus_username(rig: Rig, device: AdbDevice) -> tuple[int, int]:
    await device.start_app(DEMO_SHOP_PACKAGE)
    rig.clock.advance(5.0)
    xml = (await device.dump_hierarchy()).xml
    if await device.handle_system_popup(xml) is not None:
        xml = (await device.dump_hierarchy()).xml
    field = center(xml, "username")
    await device.tap(*field)
    return field


async def type_and_read_back(device: AdbDevice, text: str) -> str:
    await device.input_text(text)
    typed = text_of((await device.dump_hierarchy()).xml, "username")
    if typed:
        await device.shell("input keyevent" + " 67" * len(typed))
    return typed


def test_canaries_fire_when_the_payload_does_reach_the_shell(adb_server: AdbServer) -> None:
    rig = make_rig(adb_server, adb_keyboard=True)
    try:
        assert canaries_untouched(rig)
        device = rig.device("adbutils")
        asyncio.run(device.shell(f"echo 1 > {CANARY_FILE}; settings put global {CANARY_SETTING} 1"))
        assert CANARY_FILE in set(rig.daemon.fs)
        assert rig.phone.settings_get("global", CANARY_SETTING) == "1"
    finally:
        stop_rig(adb_server, rig)


@pytest.mark.parametrize("transport", TRANSPORT_NAMES)
def test_any_text_arrives_exactly_and_runs_nothing(adb_server: AdbServer, transport: str) -> None:
    rig = make_rig(adb_server, adb_keyboard=True)
    device = rig.device(transport)
    try:
        asyncio.run(focus_username(rig, device))

        @settings(max_examples=25, deadline=None)
        @given(text=texts)
        @example(text='it\'s "quoted" `tick` $(id) ; & | < > * ? ~ # \\')
        @example(text="多行\n文本 🎉 and emoji 👩‍💻")
        @example(text="50%s off")
        def typed_exactly(text: str) -> None:
            assert asyncio.run(type_and_read_back(device, text)) == text
            assert rig.phone.focused_text() == ""
            assert canaries_untouched(rig)
            assert rig.phone.current_focus()[0] == DEMO_SHOP_PACKAGE

        typed_exactly()
    finally:
        stop_rig(adb_server, rig)
