"""What counts as a high-risk action: paying, transferring, deleting an account.

The engine refuses any step not marked ``high_risk`` whose target looks like
one of these, whatever the machine allows, so text on the screen cannot talk a
planner into paying or deleting.
"""

from __future__ import annotations

from fsm_runner.perception.screen import Screen, WindowKind

_HIGH_RISK_WORDS = (
    "delete account", "pay now", "pay ", "purchase", "buy now", "place order", "transfer", "remove account",
    "删除账户", "删除帐户", "注销", "支付", "付款", "立即购买", "转账",
)


def looks_high_risk(label: str) -> bool:
    """True when ``label`` names an action that pays, transfers or deletes an account."""
    lowered = f"{label.lower()} "
    return any(word in lowered for word in _HIGH_RISK_WORDS)


def high_risk_context(screen: Screen, element_id: str, label: str) -> str:
    """The high-risk wording a tap on ``element_id`` would act on, or "".

    The element's own label counts, and so does the text of a dialog it sits in:
    the "Delete" button of a "Delete account?" dialog is as risky as the title says.
    """
    if looks_high_risk(label):
        return label
    element = screen.element(element_id)
    if element is None:
        return ""
    window = next((w for w in screen.windows if w.index == element.window), None)
    if window is None or window.kind is not WindowKind.DIALOG:
        return ""
    for other in screen.elements:
        if other.window == element.window and looks_high_risk(other.label):
            return f"{label} ({other.label})"
    return ""
