from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsm_runner.perception import VIEWS, diff_screens, fingerprint, parse_dump, render
from tests.perception.dumps import N, hierarchy

CLASSES = (
    "android.widget.FrameLayout",
    "android.widget.LinearLayout",
    "android.widget.TextView",
    "android.widget.Button",
    "android.widget.EditText",
    "android.widget.Switch",
    "android.widget.CheckBox",
    "android.widget.RadioButton",
    "android.widget.ImageView",
    "androidx.recyclerview.widget.RecyclerView",
    "android.view.View",
    "com.example.Custom$Inner",
)
PACKAGES = (
    "com.example.shop",
    "com.android.systemui",
    "com.google.android.inputmethod.latin",
    "com.android.permissioncontroller",
)

coords = st.integers(min_value=-50, max_value=2500)
texts = st.one_of(st.just(""), st.text(max_size=30), st.sampled_from(["12:45", "Delete", "$1.99", "Milk"]))


@st.composite
def bounds(draw: st.DrawFn) -> tuple[int, int, int, int]:
    x1, y1 = draw(coords), draw(coords)
    return (x1, y1, draw(st.integers(x1 - 10, x1 + 1200)), draw(st.integers(y1 - 10, y1 + 2000)))


def nodes(depth: int) -> st.SearchStrategy[N]:
    children = st.lists(nodes(depth - 1), max_size=3) if depth > 0 else st.just([])
    return st.builds(
        lambda cls, b, kids, text, desc, rid, flags, extra: N(
            cls,
            b,
            tuple(kids),
            text=text,
            desc=desc,
            rid=rid,
            clickable=flags[0],
            checkable=flags[1],
            checked=flags[2],
            scrollable=flags[3],
            enabled=flags[4],
            focused=flags[5],
            selected=flags[6],
            extra=extra,
        ),
        st.sampled_from(CLASSES),
        bounds(),
        children,
        texts,
        texts,
        st.sampled_from(["", "save", "view_12", "0_resource_name_obfuscated", "title", "row"]),
        st.tuples(*[st.booleans()] * 7),
        st.sampled_from([(), (("visible-to-user", "false"),), (("hint", "Search"), ("drawing-order", "3"))]),
    )


windows = st.lists(
    st.builds(
        lambda n, pkg: N(n.cls, n.bounds, n.children, text=n.text, package=pkg), nodes(3), st.sampled_from(PACKAGES)
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows, st.sampled_from([0, 1, 3]))
def test_any_well_formed_hierarchy_parses_renders_fingerprints_and_diffs(roots: list[N], rotation: int) -> None:
    xml = hierarchy(*roots, rotation=rotation)
    screen = parse_dump(xml)
    assert screen.rotation == rotation
    assert len(screen.windows) == len(roots)
    assert sorted(w.index for w in screen.windows) == list(range(len(roots)))
    assert len({e.element_id for e in screen.elements}) == len(screen.elements)
    assert screen.fingerprint == fingerprint(screen)
    for view in VIEWS:
        render(screen, view)
    again = parse_dump(xml)
    assert again == screen
    assert diff_screens(screen, again).empty
