"""Machine files as users write them, for the entry-point tests."""

from __future__ import annotations

from pathlib import Path

LOGIN_PAGE = '''\
from fsm_runner import Expect, Machine, Step

MACHINE = Machine(
    "login-page",
    "com.example.demoshop",
    steps=[Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5)],
)
'''

#: Fails in VERIFY: tapping Log in with empty fields never shows the product list.
EMPTY_LOGIN = '''\
from fsm_runner import Budgets, Expect, Machine, Step

MACHINE = Machine(
    "empty-login",
    "com.example.demoshop",
    steps=[
        Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5),
        Step("tap", target="Log in", expect=[Expect("visible", target="Products")], timeout_s=0.5),
    ],
    budgets=Budgets(max_heals_per_step=0),
)
'''

#: A comma is missing at the end of line 5.
SYNTAX_ERROR = '''\
from fsm_runner import Machine

MACHINE = Machine(
    "broken",
    "com.example.demoshop"
    steps=[],
)
'''

GOAL_ONLY = '''\
from fsm_runner import Machine

MACHINES = [Machine("buy-milk", "com.example.demoshop", goal="put milk in the cart")]
'''


def write(folder: Path, **files: str) -> Path:
    """Write ``name=source`` pairs as ``folder/name.py`` and return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return folder

#: Waits 60 s for a label that never appears: a run to kill halfway.
NEVER_DONE = '''\
from fsm_runner import Expect, Machine, Step

MACHINE = Machine(
    "never-done",
    "com.example.demoshop",
    steps=[
        Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5),
        Step("wait_for", expect=[Expect("visible", target="A label no screen has")], timeout_s=60),
    ],
)
'''

#: Tagged with its locale: the simulated phone it runs on speaks Chinese.
CHINESE_LOGIN_PAGE = '''\
from fsm_runner import Expect, Machine, Step

MACHINE = Machine(
    "login-page-zh",
    "com.example.demoshop",
    steps=[Step("wait_for", expect=[Expect("visible", target="登录")], timeout_s=5)],
    tags=("demo", "zh-CN"),
)
'''
