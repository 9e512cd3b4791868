import pytest

from adapters.adb.dumpsys import (
    ime_listed,
    oriented_size,
    package_listed,
    parse_focus,
    parse_locked,
    parse_rotation,
    parse_screen_on,
    parse_settings_value,
    parse_version_name,
    parse_wm_size,
)
from adapters.base import AppInfo, WindowSize

DUMPSYS_WINDOW = """\
WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #3 Window{5e2b1a0 u0 com.example.demoshop/com.example.demoshop.LoginActivity}:
  mCurrentFocus=Window{5e2b1a0 u0 com.example.demoshop/com.example.demoshop.LoginActivity}
  mFocusedApp=ActivityRecord{8c1d2e3 u0 com.example.demoshop/.LoginActivity t42}
    mDreamingLockscreen=false mDreamingSleepToken=null
    isStatusBarKeyguard=false
"""


def test_wm_size_prefers_the_override_size() -> None:
    assert parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (720, 1600)
    assert parse_wm_size("Physical size: 1080x2400\n") == (1080, 2400)


def test_wm_size_without_a_size_is_an_error() -> None:
    with pytest.raises(ValueError, match="no size"):
        parse_wm_size("/system/bin/sh: wm: not found")


def test_quarter_turns_swap_width_and_height() -> None:
    assert oriented_size((1080, 2400), 1) == WindowSize(2400, 1080)
    assert oriented_size((1080, 2400), 2) == WindowSize(1080, 2400)


@pytest.mark.parametrize(
    ("text", "rotation"),
    [
        ("  mCurrentOrientation=1\n", 1),
        ("    SurfaceOrientation: 3\n", 3),
        ("DisplayInfo{..., rotation 2, density 420}", 2),
        ("mOverrideDisplayInfo ... orientation=ROTATION_270", 3),
        ("nothing here", None),
    ],
)
def test_rotation_is_read_from_display_or_input_dumps(text: str, rotation: int | None) -> None:
    assert parse_rotation(text) == rotation


def test_focus_comes_from_current_focus_with_the_full_activity_name() -> None:
    assert parse_focus(DUMPSYS_WINDOW) == AppInfo("com.example.demoshop", "com.example.demoshop.LoginActivity")


def test_focus_falls_back_to_focused_app_and_expands_short_activity_names() -> None:
    text = (
        "  mCurrentFocus=Window{11 u0 NotificationShade}\n"
        "  mFocusedApp=ActivityRecord{22 u0 com.android.launcher3/.uioverrides.QuickstepLauncher t1}\n"
    )
    assert parse_focus(text) == AppInfo("com.android.launcher3", "com.android.launcher3.uioverrides.QuickstepLauncher")
    assert parse_focus("mCurrentFocus=null\n") is None


def test_version_name_and_package_listing() -> None:
    assert parse_version_name("    versionCode=42 minSdk=24\n    versionName=1.4.2\n") == "1.4.2"
    assert parse_version_name("Unable to find package: x") is None
    listing = "package:com.example.demoshop\npackage:com.example.demoshopper\n"
    assert package_listed(listing, "com.example.demoshop")
    assert not package_listed("package:com.example.demoshopper\n", "com.example.demoshop")
    assert ime_listed(
        "com.google.android.inputmethod.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n",
        "com.android.adbkeyboard/.AdbIME",
    )


def test_settings_null_means_unset() -> None:
    assert parse_settings_value("null\n") is None
    assert parse_settings_value("1.0\n") == "1.0"


def test_screen_and_lock_state() -> None:
    assert parse_screen_on("  mWakefulness=Asleep\n") is False
    assert parse_screen_on("Display Power: state=ON\n") is True
    assert parse_screen_on("mAwake=true") is True
    assert parse_screen_on("nothing") is None
    assert parse_locked(DUMPSYS_WINDOW) is False
    assert parse_locked("mDreamingLockscreen=false isStatusBarKeyguard=true") is True
    assert parse_locked("nothing") is None
