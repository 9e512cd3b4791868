import pytest

from adb_driver.conftest import Rig
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, main
from fsm_runner.sim_adb import free_port


@pytest.mark.parametrize("transport", ["adbutils", "ppadb"])
def test_devices_without_a_server_exits_with_the_environment_code_and_names_the_fix(
    transport: str, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    assert main(["devices", "--adb-server", f"127.0.0.1:{port}", "--transport", transport]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert f"adb -P {port} start-server" in err


def test_devices_with_a_malformed_server_address_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["devices", "--adb-server", "localhost:notaport"])
    assert caught.value.code == EXIT_USAGE
    assert "HOST:PORT" in capsys.readouterr().err


@pytest.mark.adb
@pytest.mark.parametrize("transport", ["adbutils", "ppadb"])
def test_devices_lists_the_connected_phone_with_its_state(
    rig: Rig, transport: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["devices", "--adb-server", rig.server, "--transport", transport]) == EXIT_OK
    assert f"{rig.serial}\tdevice" in capsys.readouterr().out.splitlines()
