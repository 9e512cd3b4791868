"""The PNG screenshot agrees with the hierarchy and is deterministic."""

from __future__ import annotations

import io

from PIL import Image

from adapters.sim import SimPhone
from tests.sim.conftest import make_driver
from tests.sim.dump_reader import Driver, FakeClock, parse_bounds


def picture(d: Driver) -> Image.Image:
    return Image.open(io.BytesIO(d.phone.screencap_png())).convert("RGB")


def colours(img: Image.Image) -> set[object]:
    return {colour for _, colour in img.getcolors(maxcolors=1 << 20) or []}


def region_colours(img: Image.Image, bounds: str) -> set[tuple[int, int, int]]:
    x1, y1, x2, y2 = parse_bounds(bounds)
    return {img.getpixel((x, y)) for x in range(x1, x2, 4) for y in range(y1, y2, 4)}  # type: ignore[misc]


def test_screenshot_is_display_sized_and_byte_identical_for_the_same_state(clock: FakeClock) -> None:
    a, b = make_driver(clock), make_driver(clock)
    for d in (a, b):
        d.login()
    png = a.phone.screencap_png()
    assert png == b.phone.screencap_png() == a.phone.screencap_png()
    assert Image.open(io.BytesIO(png)).size == (1080, 2400)
    small = SimPhone(now=clock, width=720, height=1280)
    assert Image.open(io.BytesIO(small.screencap_png())).size == (720, 1280)


def test_switch_pixels_change_with_its_checked_state(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    d.tap(rid="settings_button")
    switch = d.find(rid="switch_save_payment")
    _x1, y1, x2, y2 = parse_bounds(switch.attrib["bounds"])
    track = (x2 - 140, y1, x2, y2)
    off = picture(d).crop(track)
    d.tap(rid="switch_save_payment")
    assert d.find(rid="switch_save_payment").attrib["checked"] == "true"
    on = picture(d).crop(track)
    assert off.tobytes() != on.tobytes()
    assert (98, 0, 238) in colours(on) and (98, 0, 238) not in colours(off)


def test_text_of_a_node_is_drawn_inside_its_bounds(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.launch_to_login()
    title = d.find(rid="login_title")
    colours = region_colours(picture(d), title.attrib["bounds"])
    assert (255, 255, 255) in colours and len(colours) > 2, "glyph pixels on a white background"


def test_keyboard_is_drawn_over_the_login_button(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.launch_to_login()
    button = d.find(rid="login_button").attrib["bounds"]
    before = region_colours(picture(d), button)
    d.tap(rid="username")
    after = region_colours(picture(d), button)
    assert (98, 0, 238) in before and (98, 0, 238) not in after


def test_dark_screen_is_black(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.phone.keyevent(26)
    img = picture(d)
    assert img.getextrema() == ((0, 0), (0, 0), (0, 0))
    assert d.phone.locked() and not d.phone.screen_on()


def test_unchanged_screen_reuses_the_frame_and_a_change_redraws(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    first = d.phone.screencap_png()
    assert d.phone.screencap_png() is first
    d.tap(rid="product_item")
    d.tap(rid="add_to_cart")
    with_toast = d.phone.screencap_png()
    d.wait(2.5)
    assert d.phone.screencap_png() != with_toast, "the toast has gone from the picture"
