import pytest

from adapters.adb.ppadb_transport import split_exit_marker
from adapters.adb.transport import (
    TRANSPORT_NAMES,
    ServerAddress,
    open_transport,
    parse_devices,
    server_failure,
)
from adapters.errors import AdbServerError, DeviceError, DeviceNotFoundError, DeviceOfflineError
from fsm_runner.sim_adb import free_port


def test_server_address_parses_host_and_port() -> None:
    assert ServerAddress.parse("10.0.0.2:5038") == ServerAddress("10.0.0.2", 5038)
    assert ServerAddress.parse("5039") == ServerAddress("127.0.0.1", 5039)
    assert str(ServerAddress.parse(" 127.0.0.1:5037 ")) == "127.0.0.1:5037"


@pytest.mark.parametrize("text", ["", "host:", "host:abc", "host:70000"])
def test_malformed_server_address_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        ServerAddress.parse(text)


def test_unknown_transport_name_is_refused() -> None:
    with pytest.raises(ValueError, match="adbutils, ppadb"):
        open_transport("usb", ServerAddress("127.0.0.1", 5037))


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("device 'emulator-5554' not found", DeviceNotFoundError),
        ("no devices/emulators found", DeviceNotFoundError),
        ("device offline", DeviceOfflineError),
        ("device unauthorized.", DeviceOfflineError),
    ],
)
def test_server_failures_map_to_device_errors(message: str, kind: type[DeviceError]) -> None:
    error = server_failure(message, serial="s1", command="echo")
    assert type(error) is kind
    assert (error.serial, error.command) == ("s1", "echo")


def test_devices_listing_is_parsed_in_every_state() -> None:
    listing = "127.0.0.1:7101\tdevice\nemulator-5554\toffline\n"
    assert [(e.serial, e.state) for e in parse_devices(listing)] == [
        ("127.0.0.1:7101", "device"),
        ("emulator-5554", "offline"),
    ]


def test_exit_marker_is_split_from_the_output() -> None:
    assert split_exit_marker(b"hello\n__FSM_RC=0\n") == (b"hello\n", 0)
    assert split_exit_marker(b"__FSM_RC=1 in output\n__FSM_RC=127\n") == (b"__FSM_RC=1 in output\n", 127)
    assert split_exit_marker(b"no marker") is None


@pytest.mark.parametrize("name", TRANSPORT_NAMES)
def test_missing_server_is_an_adb_server_error_naming_both_fixes(name: str) -> None:
    port = free_port()
    transport = open_transport(name, ServerAddress("127.0.0.1", port))
    with pytest.raises(AdbServerError) as caught:
        transport.devices()
    assert f"adb -P {port} start-server" in str(caught.value)
    assert "--adb-server" in str(caught.value)
    with pytest.raises(AdbServerError):
        transport.shell("any", "echo hi", 2.0)


def test_missing_server_is_never_started_behind_the_callers_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import adbutils._adb as adbutils_adb

    spawned: list[object] = []
    monkeypatch.setattr(adbutils_adb.subprocess, "run", lambda *args, **kwargs: spawned.append(args))
    transport = open_transport("adbutils", ServerAddress("127.0.0.1", free_port()))
    with pytest.raises(AdbServerError):
        transport.shell("any", "echo hi", 2.0)
    assert spawned == []
