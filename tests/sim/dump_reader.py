"""Test-side reading of the phone's dump, and raw-input driving that taps what the dump shows."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from adapters.sim import SimPhone

PKG = "com.example.demoshop"


class FakeClock:
    """A clock that moves only when a test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def parse_bounds(text: str) -> tuple[int, int, int, int]:
    left_top, right_bottom = text[1:-1].split("][")
    x1, y1 = (int(v) for v in left_top.split(","))
    x2, y2 = (int(v) for v in right_bottom.split(","))
    return x1, y1, x2, y2


def centre(node: ET.Element) -> tuple[int, int]:
    x1, y1, x2, y2 = parse_bounds(node.attrib["bounds"])
    return (x1 + x2) // 2, (y1 + y2) // 2


class Driver:
    """Drives a phone only through raw input events at coordinates read from a fresh dump."""

    def __init__(self, phone: SimPhone, clock: FakeClock) -> None:
        self.phone = phone
        self.clock = clock

    def root(self, compressed: bool = False) -> ET.Element:
        outcome = self.phone.ui_dump(compressed=compressed)
        assert outcome.xml is not None, outcome.error
        return ET.fromstring(outcome.xml)

    def find_all(self, *, rid: str | None = None, text: str | None = None, desc: str | None = None,
                 package: str | None = None) -> list[ET.Element]:
        out = []
        for node in self.root().iter("node"):
            if rid is not None and node.attrib["resource-id"] != (rid if ":" in rid else f"{PKG}:id/{rid}"):
                continue
            if text is not None and node.attrib["text"] != text:
                continue
            if desc is not None and node.attrib["content-desc"] != desc:
                continue
            if package is not None and node.attrib["package"] != package:
                continue
            out.append(node)
        return out

    def find(self, **query: str) -> ET.Element:
        found = self.find_all(**query)
        assert found, f"nothing on screen matches {query}; focus is {self.phone.current_focus()}"
        return found[0]

    def exists(self, **query: str) -> bool:
        return bool(self.find_all(**query))

    def tap(self, **query: str) -> None:
        self.phone.tap(*centre(self.find(**query)))

    def wait(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def launch_to_login(self) -> None:
        """Cold start, wait out the splash, deny the notification prompt."""
        self.phone.start_activity(PKG)
        self.wait(1.1)
        if self.exists(rid="com.android.permissioncontroller:id/permission_deny_button"):
            self.tap(rid="com.android.permissioncontroller:id/permission_deny_button")

    def type_into(self, rid: str, text: str) -> None:
        self.tap(rid=rid)
        self.phone.input_text(text)

    def login(self, user: str = "alice", password: str = "secret123") -> None:
        self.launch_to_login()
        self.type_into("username", user)
        self.type_into("password", password)
        self.phone.keyevent(4)
        self.tap(rid="login_button")
        self.wait(0.6)
