"""Goal-only Demo Shop machines: an LLM planner proposes each step; a replay file beside each holds model answers.

``GOAL_MACHINES`` names each machine module; ``replay_path(name)`` is its
recorded answers (``<name>.replay.yaml``), which the scripted chat server
replays so the machines run offline.
"""

from __future__ import annotations

from pathlib import Path

GOAL_MACHINES = ("dark_mode", "cheapest_to_cart", "mug_quantity")


def replay_path(name: str) -> Path:
    """The recorded model answers of goal machine ``name``."""
    return Path(__file__).with_name(f"{name}.replay.yaml")


__all__ = ["GOAL_MACHINES", "replay_path"]
