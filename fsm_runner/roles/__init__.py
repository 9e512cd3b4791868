"""The roles: typed views in, typed results out; offline rule-based implementations by default."""

from fsm_runner.roles.executor import DeviceExecutor
from fsm_runner.roles.failure_patterns import FailurePattern, FailurePatterns
from fsm_runner.roles.healer import RuleHealer
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.scripted import ScriptedPlanner, check_predicates, load_steps
from fsm_runner.roles.target import Target, parse_target
from fsm_runner.roles.validator import Predicate, RuleValidator
from fsm_runner.roles.values import Secrets, Values, read_remembered, substitute

__all__ = [
    "DeviceExecutor",
    "FailurePattern",
    "FailurePatterns",
    "Predicate",
    "RuleHealer",
    "RuleLocator",
    "RuleValidator",
    "ScriptedPlanner",
    "Secrets",
    "Target",
    "Values",
    "check_predicates",
    "load_steps",
    "parse_target",
    "read_remembered",
    "substitute",
]
