"""The engine's error hierarchy.

Errors are for bad definitions and broken infrastructure; budget exhaustion,
loops and failed expectations are states of a run, never exceptions.
"""

from __future__ import annotations


class FsmRunnerError(Exception):
    """Base of every error raised by ``fsm_runner``."""


class DefinitionError(FsmRunnerError, ValueError):
    """A machine, step, expectation or budget is invalid; raised at construction.

    ``field`` names what is wrong and ``fix`` says what to write instead.
    """

    def __init__(self, message: str, *, field: str, fix: str) -> None:
        super().__init__(f"{message} [{field}]: {fix}")
        self.field = field
        self.fix = fix


class PerceptionError(FsmRunnerError, ValueError):
    """A hierarchy dump could not be read; ``head`` holds its first bytes for the report."""

    def __init__(self, message: str, *, head: str = "") -> None:
        super().__init__(f"{message}; dump starts with {head!r}" if head else message)
        self.head = head


class RoleError(FsmRunnerError):
    """A role could not produce a usable answer; ``role`` and ``layer`` attribute the failure."""

    def __init__(self, message: str, *, role: str, layer: str) -> None:
        super().__init__(message)
        self.role = role
        self.layer = layer


class ConfigurationError(FsmRunnerError):
    """Settings are missing or invalid (LLM endpoint, config file); the message names the key."""
