from pathlib import Path

import pytest

from adapters.popups import PopupAction, decide_popup_action, find_system_popup

HERE = Path(__file__).parent
DIALOG = (HERE / "permission_dialog.xml").read_text(encoding="utf-8")
CORPUS = sorted(Path("/work/shared/ui-corpus").glob("*.xml"))

ZH_DIALOG = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout"
 package="com.android.packageinstaller" clickable="false" bounds="[0,0][1080,2400]">
<node index="0" text="拒绝" resource-id="" class="android.widget.Button"
 package="com.android.packageinstaller" clickable="true" bounds="[100,1500][500,1600]" />
<node index="1" text="允许" resource-id="" class="android.widget.Button"
 package="com.android.packageinstaller" clickable="true" bounds="[580,1500][980,1600]" />
</node></hierarchy>"""


def test_permission_dialog_is_recognized_with_both_buttons() -> None:
    popup = find_system_popup(DIALOG)
    assert popup is not None
    assert popup.package == "com.google.android.permissioncontroller"
    assert popup.message == "Allow Demo Shop to send you notifications?"
    assert popup.allow is not None and popup.allow.bounds == (110, 1300, 970, 1440)
    assert popup.deny is not None and popup.deny.bounds == (110, 1460, 970, 1600)


def test_an_app_button_labelled_allow_is_not_a_system_popup() -> None:
    app_only = (
        DIALOG.split(
            '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
            'package="com.google.android.permissioncontroller"'
        )[0]
        + "</hierarchy>"
    )
    assert find_system_popup(app_only) is None


@pytest.mark.parametrize(
    ("policy", "button", "bounds"),
    [
        ("allow", "permission_allow_button", (110, 1300, 970, 1440)),
        ("deny", "permission_deny_button", (110, 1460, 970, 1600)),
        ("fail", None, None),
    ],
)
def test_policy_picks_the_button(policy: str, button: str | None, bounds: tuple[int, ...] | None) -> None:
    popup = find_system_popup(DIALOG)
    assert popup is not None
    action = decide_popup_action(popup, policy)  # type: ignore[arg-type]
    assert action == PopupAction(
        package="com.google.android.permissioncontroller",
        policy=policy,  # type: ignore[arg-type]
        message="Allow Demo Shop to send you notifications?",
        button=button,
        bounds=bounds,  # type: ignore[arg-type]
    )
    assert action.tapped is (button is not None)


def test_buttons_are_found_by_text_when_ids_are_missing() -> None:
    popup = find_system_popup(ZH_DIALOG)
    assert popup is not None
    assert popup.allow is not None and popup.allow.text == "允许"
    assert popup.deny is not None and popup.deny.bounds == (100, 1500, 500, 1600)


def test_broken_xml_is_no_popup() -> None:
    assert find_system_popup("<hierarchy><node") is None


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_real_device_screens_without_permission_dialogs_show_no_popup(path: Path) -> None:
    assert find_system_popup(path.read_text(encoding="utf-8")) is None
