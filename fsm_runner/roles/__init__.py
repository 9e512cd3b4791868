"""The roles: typed views in, typed results out; offline rule-based implementations by default."""

from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.target import Target, parse_target

__all__ = ["RuleLocator", "Target", "parse_target"]
