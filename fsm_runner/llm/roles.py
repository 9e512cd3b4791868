"""``llm_roles``: the offline roles with the LLM planner, locator tier and prose oracle plugged in.

Only the roles a machine needs call the model: a goal-only machine gets the
LLM planner, prose expectations get the oracle, and the locator asks the model
only when the rules are unsure. With no client given, the endpoint comes from
the environment, and a machine that needs the LLM is refused at start when
nothing is configured (``ConfigurationError`` naming the variables).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import attrs

from adapters.base import Device
from fsm_runner.clock import Clock, SystemClock
from fsm_runner.llm.cache import DecisionCache
from fsm_runner.llm.client import LlmClient
from fsm_runner.llm.locator import DEFAULT_THRESHOLD, LlmLocator
from fsm_runner.llm.oracle import LlmValidator
from fsm_runner.llm.planner import DoneCheck, LlmPlanner
from fsm_runner.llm.profiles import Endpoint, Profile, default_profiles
from fsm_runner.llm.vision import prepared_screenshot
from fsm_runner.machine import Machine
from fsm_runner.roles.base import (
    Observation,
    Observer,
    Planner,
    Roles,
    Validator,
    ValidatorView,
    Verdict,
    VerdictStatus,
)
from fsm_runner.roles.failure_patterns import FailurePatterns
from fsm_runner.roles.healer import RuleHealer
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.scripted import ScriptedPlanner
from fsm_runner.roles.validator import RuleValidator
from fsm_runner.roles.values import Secrets
from fsm_runner.steps import Check


def needs_llm(machine: Machine) -> bool:
    """True for a goal-only machine, or one with prose expectations (which only a model can judge)."""
    if not machine.steps:
        return True
    expects = [*machine.final, *(e for step in machine.steps for e in step.expect)]
    return any(e.check is Check.PROSE for e in expects)


class _LatestObserver:
    """Passes observations through and keeps the latest, for the done check and the screenshot."""

    def __init__(self, inner: Observer | None = None) -> None:
        self.inner = inner
        self.latest: Observation | None = None

    async def observe(self, device: Device, index: int) -> Observation:
        assert self.inner is not None, "the observer is installed by llm_roles before any run"
        observation = await self.inner.observe(device, index)
        self.latest = observation
        return observation


def client_from_env(
    machine: Machine,
    *,
    environ: Mapping[str, str] | None = None,
    clock: Clock | None = None,
    secrets: Secrets | None = None,
) -> LlmClient:
    """A client for the configured endpoint; ConfigurationError naming the variables when none is."""
    endpoint = Endpoint.from_env(environ, needed_by=f"machine {machine.name!r}")
    return LlmClient(endpoint, clock=clock, redact=(secrets or Secrets()).redact)


def llm_roles(
    machine: Machine,
    client: LlmClient | None = None,
    cache: DecisionCache | None = None,
    *,
    profiles: Mapping[str, Profile] | None = None,
    page_map: str = "",
    locator_threshold: float = DEFAULT_THRESHOLD,
    screenshots: bool = False,
    failure_patterns: str | Path | None = None,
    clock: Clock | None = None,
    secrets: Secrets | None = None,
    environ: Mapping[str, str] | None = None,
) -> Roles:
    """The roles for ``machine`` with the LLM where it is needed.

    ``cache`` holds decisions across runs (None: no cache). A scripted machine
    without prose checks gets the offline roles (rules and its scripted plan)
    and needs no endpoint.
    """
    run_clock = clock or SystemClock()
    rules = RuleLocator()
    rule_validator = RuleValidator(locator=rules, predicates=machine.predicates)
    if not needs_llm(machine):
        return _roles(machine, ScriptedPlanner(machine.steps), rules, rule_validator, screenshots, failure_patterns,
                      run_clock)
    if client is None:
        client = client_from_env(machine, environ=environ, clock=clock, secrets=secrets)
    chosen = dict(profiles or default_profiles(client.endpoint.model))
    observer = _LatestObserver()
    validator = LlmValidator(client, chosen["validator"], rules=rule_validator)
    planner: Planner = ScriptedPlanner(machine.steps)
    if not machine.steps:
        planner = LlmPlanner(
            client,
            chosen["planner"],
            machine=machine.name,
            cache=cache,
            page_map=page_map,
            done_check=_done_check(machine, observer, validator),
            screenshot=lambda: _screenshot(observer),
        )
    vision = screenshots or any(p.vision for p in chosen.values())
    base = _roles(machine, planner, rules, validator, vision, failure_patterns, run_clock)
    observer.inner = base.observer
    locator = LlmLocator(
        client,
        chosen["locator"],
        rules=rules,
        threshold=locator_threshold,
        machine=machine.name,
        cache=cache,
        screenshot=lambda: _screenshot(observer),
    )
    return attrs.evolve(base, observer=observer, locator=locator)


def _roles(
    machine: Machine,
    planner: Planner,
    locator: RuleLocator,
    validator: Validator,
    screenshots: bool,
    failure_patterns: str | Path | None,
    clock: Clock,
) -> Roles:
    from fsm_runner.perception.observer import DumpObserver
    from fsm_runner.roles.executor import DeviceExecutor

    return Roles(
        observer=DumpObserver(screenshots=screenshots, now=clock.now),
        planner=planner,
        locator=locator,
        executor=DeviceExecutor(locator=locator, now=clock.now, sleep=clock.sleep),
        validator=validator,
        healer=RuleHealer(FailurePatterns(failure_patterns) if failure_patterns else None),
    )


def _done_check(machine: Machine, observer: _LatestObserver, validator: LlmValidator) -> DoneCheck:
    async def check() -> Verdict:
        latest = observer.latest
        if not machine.final:
            return Verdict(VerdictStatus.PASS, reason="the goal states no success expectations")
        if latest is None:
            return Verdict(VerdictStatus.UNKNOWN, reason="nothing observed yet")
        return await validator.validate(ValidatorView(expect=machine.final, screen=latest.screen, toasts=latest.toasts))

    return check


def _screenshot(observer: _LatestObserver) -> bytes | None:
    latest = observer.latest
    if latest is None or latest.screenshot is None:
        return None
    return prepared_screenshot(latest.screenshot, latest.screen)
