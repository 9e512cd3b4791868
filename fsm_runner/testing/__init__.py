"""Tools to test machines and the engine: scripted roles, an in-memory device, strategies, a harness."""

from fsm_runner.testing.chat_server import ChatServer, RecordedRequest, Reply, replay_script, start_replay_server
from fsm_runner.testing.device import MemoryDevice
from fsm_runner.testing.harness import InvariantBroken, check_machine, terminal_absorbs
from fsm_runner.testing.roles import RoleAnswers, ScriptedFault, ScriptedRoles, screen_with_fingerprint
from fsm_runner.testing.strategies import budgets, role_answers

__all__ = [
    "ChatServer",
    "InvariantBroken",
    "MemoryDevice",
    "RecordedRequest",
    "Reply",
    "RoleAnswers",
    "ScriptedFault",
    "ScriptedRoles",
    "budgets",
    "check_machine",
    "replay_script",
    "role_answers",
    "screen_with_fingerprint",
    "start_replay_server",
    "terminal_absorbs",
]
