"""System prompts, one text file per role (and per platform where element attributes differ)."""

from __future__ import annotations

from importlib import resources

ROLES = ("planner", "locator", "validator", "healer")


def system_prompt(role: str, platform: str = "android") -> str:
    """The system prompt for ``role``: ``<role>.<platform>.txt`` when present, else ``<role>.txt``."""
    if role not in ROLES:
        raise ValueError(f"no prompt for role {role!r}; known roles: {', '.join(ROLES)}")
    folder = resources.files(__name__)
    specific = folder / f"{role}.{platform}.txt"
    chosen = specific if specific.is_file() else folder / f"{role}.txt"
    return chosen.read_text(encoding="utf-8").strip()
