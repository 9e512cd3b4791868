"""The engine: one loop that does each state's work and fires the one trigger it leads to.

Roles return results; only :meth:`Engine._fire` changes state. Every state's
work is awaited against the run clock with its own deadline, and every budget
is checked between states, so a run always ends in PASSED, FAILED, ERROR or
ABORTED with a reason, never with an exception or a hang.
"""

from __future__ import annotations

import inspect
import itertools
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import attrs
import structlog
from transitions import Machine as _TransitionsMachine

from adapters.base import Device
from adapters.errors import DeviceError, EnvironmentFault
from adapters.popups import decide_popup_action, find_system_popup
from fsm_runner import table
from fsm_runner.clock import Clock, SystemClock
from fsm_runner.errors import DefinitionError, PerceptionError, RoleError
from fsm_runner.events import emit, run_emitter
from fsm_runner.loop_detector import LoopDetector
from fsm_runner.machine import Machine, OutcomeContext
from fsm_runner.perception.screen import WindowKind
from fsm_runner.records import HealRecord, Outcome, RunResult, StepRecord
from fsm_runner.risk import high_risk_context
from fsm_runner.roles.base import (
    ExecStatus,
    ExecutionRequest,
    ExecutionResult,
    Failure,
    HealAction,
    HealDecision,
    HealerView,
    Layer,
    Location,
    LocatorView,
    Observation,
    PlanDecision,
    Planner,
    PlannerView,
    Roles,
    StepSummary,
    Usage,
    ValidatorView,
    Verdict,
    VerdictStatus,
)
from fsm_runner.steps import TARGETED_ACTIONS, Action, Step

#: The layer a role's unexpected exception is blamed on, by the state it happened in.
_STATE_LAYER: Mapping[str, Layer] = {
    table.OBSERVE: Layer.PERCEPTION,
    table.PLAN: Layer.DECISION,
    table.EXECUTE: Layer.EXECUTION,
    table.VERIFY: Layer.VERDICT,
}
_ROLE_OF_STATE: Mapping[str, str] = {
    table.INIT: "device",
    table.OBSERVE: "observer",
    table.PLAN: "planner",
    table.EXECUTE: "executor",
    table.VERIFY: "validator",
    table.HEAL: "healer",
    table.NEXT_OR_END: "validator",
}

Trigger = tuple[str, dict[str, Any]]

#: System dialogs answered in one run before the environment is declared unusable.
MAX_POPUPS_PER_RUN = 20


class RunRecorder(Protocol):
    """Receives a run's evidence as it happens (the run directory writer implements it).

    Calls never change the run; an exception raised here is logged and ignored.
    """

    def observation(self, observation: Observation) -> None:
        """One observation (dump, and screenshot when taken), in order."""
        ...

    def step(self, record: StepRecord) -> None:
        """One finished step record (passed, skipped or failed)."""
        ...

    def finish(self, result: RunResult) -> None:
        """The verdict; no call follows."""
        ...


class _ObservationsOnly:
    """A sub-machine's recorder: its observations join the parent's evidence; its steps and
    verdict reach the parent's record through the ``run_machine`` step instead."""

    def __init__(self, parent: RunRecorder) -> None:
        self._parent = parent

    def observation(self, observation: Observation) -> None:
        self._parent.observation(observation)

    def step(self, record: StepRecord) -> None:
        return None

    def finish(self, result: RunResult) -> None:
        return None


class _Model:
    """The ``transitions`` model: a plain object whose ``state`` the machine sets."""

    state: str


@attrs.define
class _Current:
    """Mutable progress of the step being worked on."""

    index: int
    started_at: float
    step: Step | None = None
    #: The step a re-plan set aside: still this step's record if the run ends before a new one comes.
    replanned: Step | None = None
    decision: PlanDecision | None = None
    action_id: str = ""
    before: Observation | None = None
    after: Observation | None = None
    location: Location | None = None
    execution: ExecutionResult | None = None
    verdict: Verdict | None = None
    window_end: float | None = None
    checks: int = 0
    heals: list[HealRecord] = attrs.field(factory=list)
    first_failure: Failure | None = None
    root_layer: Layer | None = None
    last_heal: tuple[HealerView, HealDecision] | None = None
    usage: Usage = Usage()
    children: tuple[StepRecord, ...] = ()
    remembered: tuple[tuple[str, str], ...] = ()


class Engine:
    """Runs one machine on one device with one set of roles.

    ``values`` are remembered values shared with a parent machine; ``run_dir``
    (when given) is bound into every event so an entry point can route them.
    """

    def __init__(
        self,
        machine: Machine,
        device: Device,
        roles: Roles,
        *,
        clock: Clock | None = None,
        run_id: str | None = None,
        run_dir: str | None = None,
        values: dict[str, str] | None = None,
        resolve_text: Callable[[str, Mapping[str, str]], str] | None = None,
        loop_window: int = 5,
        loop_repeats: int = 3,
        recorder: RunRecorder | None = None,
        first_observation: int = 0,
    ) -> None:
        if device is None:
            raise DefinitionError(
                "no device given", field="device", fix="pass a Device (AdbDevice, SimDevice, ...)"
            )
        self.machine = machine
        self.device = device
        self.roles = roles
        self.clock: Clock = clock or SystemClock()
        self.run_id = run_id or uuid.uuid4().hex[:12]
        self.run_dir = run_dir
        self.budgets = machine.budgets
        self.values: dict[str, str] = values if values is not None else {}
        self._resolve_text = resolve_text or _substitute
        self._recorder = recorder
        self._loops = LoopDetector(window=loop_window, repeats=loop_repeats)
        self._model = _Model()
        self._fsm = _TransitionsMachine(
            model=self._model,
            states=table.state_definitions(),
            transitions=table.transition_definitions(),
            initial=table.IDLE,
            auto_transitions=False,
            ignore_invalid_triggers=False,
        )
        self._handlers: Mapping[str, Callable[[], Awaitable[Trigger]]] = {
            table.INIT: self._init,
            table.OBSERVE: self._observe,
            table.PLAN: self._plan,
            table.EXECUTE: self._execute,
            table.VERIFY: self._verify,
            table.HEAL: self._heal,
            table.NEXT_OR_END: self._next_or_end,
        }
        self._started = 0.0
        self._usage = Usage()
        self._records: list[StepRecord] = []
        self._path: list[str] = [table.IDLE]
        self._transitions = 0
        self._observations = first_observation
        self._steps_started = 0
        self._progress = 0
        self._retries: dict[str, int] = {}
        self._failure: Failure | None = None
        self._normal_since_heal = True
        self._ending = False
        self._skipping = False
        self._latest: Observation | None = None
        self._current = _Current(index=0, started_at=0.0)
        self._end: dict[str, Any] = {}
        self._action_ids = itertools.count(1)
        self._popups = 0
        self._emit: Callable[..., None] = emit

    @property
    def state(self) -> str:
        return self._model.state

    async def run(self) -> RunResult:
        """Run the machine to a terminal state and return the verdict with its records."""
        self._started = self.clock.now()
        self._current = _Current(index=0, started_at=self._started)
        bound: dict[str, Any] = {"run_id": self.run_id, "machine": self.machine.name}
        if self.run_dir:
            bound["run_dir"] = self.run_dir
        self._emit = run_emitter(**bound)
        with structlog.contextvars.bound_contextvars(**bound):
            self._emit(
                "run.start",
                ts=self._started,
                device=self.device.serial,
                app=self.machine.app,
                budgets=_budget_summary(self.machine),
            )
            self._fire("start", {})
            # A hard bound on transitions: every path through the table is finite under the
            # budgets, so this only guards against a defect in the engine itself.
            transition_cap = (self.budgets.max_steps + 1) * (
                8 + self.budgets.max_checks_per_step + 4 * (self.budgets.max_heals_per_step + 1)
                + 2 * self.budgets.max_retries_per_state
            )
            while self.state not in table.TERMINAL_STATES:
                exhausted = self._exhausted_budget()
                if exhausted is None and self._transitions >= transition_cap:
                    exhausted = ("max_transitions", transition_cap, self._transitions)
                if exhausted:
                    self._budget_abort(*exhausted)
                    continue
                trigger, info = await self._work(self.state)
                self._fire(trigger, info)
            result = self._result()
            self._record("finish", result)
            try:
                await self.device.restore()
            except DeviceError as err:
                self._emit("device.restore_failed", ts=self.clock.now(), error=str(err))
            self._emit(
                "run.end",
                ts=self.clock.now(),
                outcome=result.outcome.value,
                reason=result.reason,
                layer=result.layer.value if result.layer else None,
                steps=len(result.steps),
                wall_s=result.wall_s,
                llm_calls=result.usage.calls,
                tokens=result.usage.tokens,
            )
        return result

    def _record(self, kind: str, value: Any) -> None:
        if self._recorder is None:
            return
        try:
            getattr(self._recorder, kind)(value)
        except Exception as err:
            # Evidence must never change a verdict: a broken writer is reported and the run goes on.
            self._emit("evidence.failed", ts=self.clock.now(), kind=kind, error=f"{type(err).__name__}: {err}")

    def _fire(self, trigger: str, info: dict[str, Any]) -> None:
        src = self.state
        getattr(self._model, trigger)()
        self._transitions += 1
        self._path.append(self.state)
        fields = {k: v for k, v in info.items() if k in ("reason", "cause", "layer", "budget")}
        self._emit("fsm.transition", ts=self.clock.now(), src=src, dst=self.state, trigger=trigger, **fields)
        if self.state in table.TERMINAL_STATES:
            self._end = {"trigger": trigger, **info}

    async def _work(self, state: str) -> Trigger:
        remaining = self.budgets.max_wall_s - (self.clock.now() - self._started)
        limit = min(self.budgets.timeout_for(state), remaining)
        try:
            return await self.clock.wait_for(self._handlers[state](), limit)
        except TimeoutError:
            if limit >= remaining:
                return self._budget_trigger("max_wall_s", self.budgets.max_wall_s, self.clock.now() - self._started)
            if self.budgets.policy_for(state) == "heal" and state in _STATE_LAYER:
                return self._trouble(state, "timeout", _STATE_LAYER[state], f"{state} took longer than {limit:g} s")
            return self._budget_trigger(f"state_timeout.{state}", limit, limit)
        except EnvironmentFault as err:
            return "error", {"reason": f"environment: {err}", "layer": Layer.ENVIRONMENT, "state": state}
        except RoleError as err:
            # The calls a failing role made still count against the run's budgets.
            self._add_usage(getattr(err, "usage", None) or Usage())
            layer = Layer(err.layer) if err.layer in Layer.__members__.values() else _STATE_LAYER.get(state)
            return self._role_failure(state, err.role, layer, err)
        except DeviceError as err:
            return self._role_failure(state, "device", Layer.EXECUTION, err)
        except Exception as err:
            return self._role_failure(state, _ROLE_OF_STATE.get(state, "engine"), _STATE_LAYER.get(state), err)

    def _role_failure(self, state: str, role: str, layer: Layer | None, err: Exception) -> Trigger:
        detail = f"{role} raised {type(err).__name__}: {err}"
        self._emit("role.failed", ts=self.clock.now(), role=role, state=state, error=detail)
        if layer is not None and "trouble" in table.allowed(state):
            return self._trouble(state, "role_error", layer, detail)
        return "error", {"reason": detail, "layer": layer or Layer.ENVIRONMENT, "state": state}

    def _trouble(self, state: str, cause: str, layer: Layer, detail: str) -> Trigger:
        step = self._current.step
        self._failure = Failure(
            state=state,
            cause=cause,
            layer=layer,
            detail=detail,
            step_index=self._current.index,
            target=step.target if step else None,
        )
        if self._current.first_failure is None:
            self._current.first_failure = self._failure
        return "trouble", {"cause": cause, "layer": layer.value, "reason": detail}

    def _exhausted_budget(self) -> tuple[str, float, float] | None:
        b = self.budgets
        elapsed = self.clock.now() - self._started
        if elapsed >= b.max_wall_s:
            return ("max_wall_s", b.max_wall_s, elapsed)
        if b.max_llm_calls is not None and self._usage.calls > b.max_llm_calls:
            return ("max_llm_calls", b.max_llm_calls, self._usage.calls)
        if b.max_tokens is not None and self._usage.tokens > b.max_tokens:
            return ("max_tokens", b.max_tokens, self._usage.tokens)
        return None

    def _budget_trigger(self, budget: str, limit: float, used: float) -> Trigger:
        self._emit("fsm.budget_exhausted", ts=self.clock.now(), budget=budget, limit=limit, used=used)
        return "abort", {"reason": f"budget {budget} exhausted (limit {limit:g}, used {used:g})", "budget": budget}

    def _budget_abort(self, budget: str, limit: float, used: float) -> None:
        trigger, info = self._budget_trigger(budget, limit, used)
        self._fire(trigger, info)

    def _add_usage(self, usage: Usage) -> None:
        self._usage = self._usage + usage
        self._current.usage = self._current.usage + usage

    def _count_retry(self, state: str) -> bool:
        """Count one retry of ``state`` for this step; False when its budget is spent."""
        used = self._retries.get(state, 0)
        if used >= self.budgets.max_retries_per_state:
            return False
        self._retries[state] = used + 1
        return True

    async def _observe_once(self) -> Observation:
        self._observations += 1
        observation = await self.roles.observer.observe(self.device, self._observations)
        self._latest = observation
        self._record("observation", observation)
        self._emit(
            "device.dump",
            ts=self.clock.now(),
            observation=observation.index,
            latency_ms=round(observation.dump_latency_ms, 2),
            attempts=observation.dump_attempts,
            fingerprint=observation.screen.fingerprint,
        )
        return observation

    async def _init(self) -> Trigger:
        report = await self.device.preflight(self.machine.app)
        self._emit(
            "device.preflight",
            ts=self.clock.now(),
            serial=report.serial,
            package=report.package,
            version=report.package_version,
            animations_off=report.animations_off,
            unicode_input=report.unicode_input,
            problems=list(report.problems),
        )
        if report.package_version is None:
            return "error", {
                "reason": f"environment: app {self.machine.app} is not installed on {report.serial}",
                "layer": Layer.ENVIRONMENT,
                "state": table.INIT,
            }
        if self.machine.start_app:
            await self.device.start_app(self.machine.app)
        return "ready", {}

    async def _observe(self) -> Trigger:
        try:
            observation = await self._observe_once()
        except PerceptionError as err:
            self._emit("perception.failed", ts=self.clock.now(), error=str(err))
            if self._count_retry(table.OBSERVE):
                await self.clock.sleep(self.budgets.poll_interval_s)
                return "reobserve", {"reason": "perception error, observing again"}
            return self._trouble(table.OBSERVE, "perception_error", Layer.PERCEPTION, str(err))
        if observation.screen.system_popup_shown:
            handled = await self._handle_system_popup(observation)
            if handled is not None:
                return handled
        verdict = self._loops.observe(observation.screen.fingerprint, self._progress)
        if verdict.looping:
            self._emit(
                "fsm.loop_detected",
                ts=self.clock.now(),
                fingerprint=verdict.fingerprint,
                seen=verdict.seen,
                window=self._loops.window,
            )
            return self._trouble(
                table.OBSERVE,
                "loop",
                Layer.DECISION,
                f"screen {verdict.fingerprint} came back {verdict.seen} times with no progress",
            )
        self._current.before = observation
        self._normal_since_heal = True
        return "observed", {}

    async def _handle_system_popup(self, observation: Observation) -> Trigger | None:
        """Answer a system permission dialog by the machine's policy: an environment event, not a step."""
        popup = find_system_popup(observation.xml)
        if popup is None:
            return None
        action = decide_popup_action(popup, self.machine.popup_policy)
        self._emit(
            "env.popup",
            ts=self.clock.now(),
            package=action.package,
            policy=action.policy,
            message=action.message,
            button=action.button,
        )
        if not action.tapped or action.bounds is None:
            return "error", {
                "reason": f"environment: system dialog {popup.message!r} from {popup.package} "
                f"(popup policy {self.machine.popup_policy!r})",
                "layer": Layer.ENVIRONMENT,
                "state": table.OBSERVE,
            }
        self._popups += 1
        if self._popups > MAX_POPUPS_PER_RUN:
            return "error", {
                "reason": f"environment: more than {MAX_POPUPS_PER_RUN} system dialogs in one run",
                "layer": Layer.ENVIRONMENT,
                "state": table.OBSERVE,
            }
        x1, y1, x2, y2 = action.bounds
        await self.device.tap((x1 + x2) // 2, (y1 + y2) // 2)
        return "reobserve", {"reason": f"answered a system dialog ({action.policy})"}

    async def _plan(self) -> Trigger:
        current = self._current
        if current.step is not None:
            return "planned", {"reason": "retrying the pending step"}
        if self._steps_started >= self.budgets.max_steps:
            return self._budget_trigger("max_steps", self.budgets.max_steps, self._steps_started)
        before = current.before
        view = self._planner_view(before)
        asked = self.clock.now()
        decision = await self.roles.planner.plan(view)
        self._add_usage(decision.usage)
        self._emit(
            "role.call",
            ts=self.clock.now(),
            role="planner",
            latency_ms=_ms_since(self.clock, asked),
            decided_by=decision.decided_by,
            cache_hit=decision.cache_hit,
            calls=decision.usage.calls,
            tokens=decision.usage.tokens,
            done=decision.done,
            step=current.index,
        )
        if decision.done or decision.step is None:
            self._ending = True
            return "plan_done", {"reason": decision.reason or "plan complete"}
        step = decision.step
        if step.high_risk and not self.machine.allow_high_risk:
            return self._trouble(
                table.PLAN,
                "high_risk_refused",
                Layer.DECISION,
                f"planner proposed high-risk step {step.describe()!r}; the machine does not allow high-risk actions",
            )
        current.step = step
        current.decision = decision
        current.started_at = self.clock.now()
        self._steps_started += 1
        self._emit(
            "step.start", ts=self.clock.now(), step=current.index, intent=step.describe(), action=step.action.value
        )
        self._normal_since_heal = True
        return "planned", {}

    def _planner_view(self, before: Observation | None) -> PlannerView:
        if before is None or not getattr(self.roles.planner, "needs_screen", True):
            return PlannerView(goal=self.machine.goal, step_index=self._current.index, page_summary="", screen_text="")
        from fsm_runner.perception import page_summary, render

        return PlannerView(
            goal=self.machine.goal,
            step_index=self._current.index,
            page_summary=page_summary(before.screen),
            screen_text=render(before.screen, "planner"),
            recent=tuple(_summary(r) for r in self._records[-5:]),
            earlier=_earlier_line(self._records[:-5]),
            fingerprint=before.screen.fingerprint,
        )

    async def _execute(self) -> Trigger:
        current = self._current
        step = current.step
        assert step is not None and current.before is not None
        if step.action is Action.RUN_MACHINE:
            return await self._run_child(step)
        location: Location | None = None
        if step.action in TARGETED_ACTIONS:
            assert step.target is not None
            target = self._resolve_text(step.target, self.values)
            asked = self.clock.now()
            location = await self._locate_waiting(step, target)
            current.location = location
            self._emit(
                "role.call",
                ts=self.clock.now(),
                role="locator",
                latency_ms=_ms_since(self.clock, asked),
                decided_by=location.decided_by,
                target=target,
                found=location.found,
                candidates=[c.element_id for c in location.candidates],
                step=current.index,
            )
            if not location.found:
                return self._trouble(
                    table.EXECUTE, "not_found", Layer.PERCEPTION, f"no element matches {target!r}: {location.reason}"
                )
            best = location.candidates[0]
            # Only a step marked high_risk may touch what looks high-risk, whatever the machine allows:
            # the machine's permission lets marked steps run, it never makes an unmarked one safe
            # (text on the screen can tell a planner to "tap Delete account").
            risky = high_risk_context(current.before.screen, best.element_id, best.label)
            if not step.high_risk and risky:
                return self._trouble(
                    table.EXECUTE,
                    "high_risk_refused",
                    Layer.DECISION,
                    f"{risky!r} looks like a high-risk action and the step is not marked high_risk",
                )
        current.action_id = f"{self.run_id}-{next(self._action_ids)}"
        text = self._resolve_text(step.value, self.values) if step.value is not None else None
        request = ExecutionRequest(
            step=step, action_id=current.action_id, screen=current.before.screen, location=location, text=text
        )
        result = await self.roles.executor.execute(request, self.device, self._observe_once)
        current.execution = result
        self._emit(
            "device.action",
            ts=self.clock.now(),
            step=current.index,
            action=step.action.value,
            action_id=result.action_id,
            element=result.element_id,
            point=list(result.point) if result.point else None,
            status=result.status.value,
            detail=result.detail,
        )
        if result.status is ExecStatus.OK or (result.status is ExecStatus.RETRY and result.maybe_applied):
            # Whatever went wrong before the action was healed; a later failure is the step's root cause.
            current.first_failure = None
            current.root_layer = None
            current.after = result.after
            current.window_end = self.clock.now() + step.timeout_s
            current.checks = 0
            self._normal_since_heal = True
            return "executed", {}
        layer = result.layer or Layer.EXECUTION
        return self._trouble(table.EXECUTE, f"exec_{result.status.value}", layer, result.detail or result.status.value)

    async def _locate_waiting(self, step: Step, target: str) -> Location:
        """Locate ``target``, re-observing until it appears or the step's window closes.

        Pages load and animate; waiting here for the element (bounded by the
        step timeout and ``max_checks_per_step``) is what a tester would do, and
        keeps a slow screen from being mistaken for a wrong one.
        """
        current = self._current
        assert current.before is not None
        deadline = current.started_at + step.timeout_s
        for attempt in range(self.budgets.max_checks_per_step):
            location = await self.roles.locator.locate(LocatorView(target=target, screen=current.before.screen))
            self._add_usage(location.usage)
            settled = location.found or location.covered
            if settled or self.clock.now() >= deadline or attempt + 1 == self.budgets.max_checks_per_step:
                return location
            await self.clock.sleep(self.budgets.poll_interval_s)
            current.before = await self._observe_once()
        return location

    async def _run_child(self, step: Step) -> Trigger:
        assert step.machine is not None
        child_machine = self.machine.machines[step.machine]
        child = Engine(
            child_machine,
            self.device,
            self._child_roles(child_machine),
            clock=self.clock,
            run_id=f"{self.run_id}.{step.machine}",
            run_dir=self.run_dir,
            values=self.values,
            resolve_text=self._resolve_text,
            recorder=_ObservationsOnly(self._recorder) if self._recorder else None,
            first_observation=self._observations,
        )
        result = await child.run()
        self._observations = child._observations
        self._add_usage(result.usage)
        self._current.children = result.steps
        if result.outcome is Outcome.PASSED:
            self._current.window_end = self.clock.now() + step.timeout_s
            self._current.checks = 0
            return "executed", {"reason": f"sub-machine {step.machine} passed"}
        reason = f"sub-machine {step.machine} ended {result.outcome.value}: {result.reason}"
        if result.outcome is Outcome.ERROR:
            return "error", {"reason": reason, "layer": result.layer or Layer.ENVIRONMENT, "state": table.EXECUTE}
        if result.outcome is Outcome.ABORTED:
            return "abort", {"reason": reason, "budget": result.budget}
        return "fail", {"reason": reason, "layer": result.layer, "state": result.failed_state}

    def _child_roles(self, child: Machine) -> Roles:
        """The parent's roles, with a planner for the sub-machine's own plan when the planner offers one."""
        planner_factory = getattr(self.roles.planner, "for_machine", None)
        if planner_factory is not None:
            planner: Planner = planner_factory(child)
        elif child.steps:
            from fsm_runner.roles.scripted import ScriptedPlanner

            planner = ScriptedPlanner(child.steps)
        else:
            planner = self.roles.planner
        return attrs.evolve(self.roles, planner=planner)

    async def _verify(self) -> Trigger:
        current = self._current
        step = current.step
        assert step is not None
        if current.after is not None and current.checks == 0:
            observation = current.after
        else:
            observation = await self._observe_once()
        current.after = observation
        current.checks += 1
        asked = self.clock.now()
        verdict = await self.roles.validator.validate(
            ValidatorView(
                expect=step.expect,
                screen=observation.screen,
                values=dict(self.values),
                toasts=observation.toasts,
                anchors=self._anchors(step),
            )
        )
        self._add_usage(verdict.usage)
        current.verdict = verdict
        self._emit(
            "role.call",
            ts=self.clock.now(),
            role="validator",
            latency_ms=_ms_since(self.clock, asked),
            status=verdict.status.value,
            llm_judged=verdict.llm_judged,
            reason=verdict.reason,
            step=current.index,
        )
        if verdict.status is VerdictStatus.PASS:
            self._normal_since_heal = True
            await self._remember(step, observation)
            self._learn_from_heal()
            return "verified", {}
        if verdict.status is VerdictStatus.FAIL:
            reason = verdict.reason or "expected state is false"
            return self._trouble(table.VERIFY, "verify_fail", Layer.VERDICT, reason)
        window_open = current.window_end is None or self.clock.now() < current.window_end
        if window_open and current.checks < self.budgets.max_checks_per_step:
            await self.clock.sleep(self.budgets.poll_interval_s)
            return "recheck", {"reason": f"{verdict.status.value}: {verdict.reason}"}
        if step.action in TARGETED_ACTIONS and current.before and _no_visible_effect(current.before, observation):
            # Nothing on the screen changed: the action had no visible effect (a tap the device
            # dropped), so repeating it once is safe and the app is not yet to blame.
            return self._trouble(
                table.VERIFY,
                "no_effect",
                Layer.EXECUTION,
                f"the screen did not change after {step.describe()} and the expected state did not come "
                f"({verdict.status.value}: {verdict.reason})",
            )
        return self._trouble(
            table.VERIFY,
            "verify_timeout",
            Layer.VERDICT,
            f"expected state not reached within {step.timeout_s:g} s ({verdict.status.value}: {verdict.reason})",
        )

    def _learn_from_heal(self) -> None:
        """Tell a healer that keeps learned fixes which of its decisions let this step pass."""
        record = getattr(self.roles.healer, "record_success", None)
        if record is not None and self._current.last_heal is not None:
            record(*self._current.last_heal)

    def _anchors(self, step: Step) -> dict[str, str]:
        best = self._current.location.best if self._current.location else None
        return {step.target: best.element_id} if step.target and best else {}

    async def _heal(self) -> Trigger:
        failure = self._failure
        assert failure is not None
        current = self._current
        if len(current.heals) >= self.budgets.max_heals_per_step:
            self._emit(
                "fsm.budget_exhausted",
                ts=self.clock.now(),
                budget="max_heals_per_step",
                limit=self.budgets.max_heals_per_step,
                used=len(current.heals),
            )
            return self._give_up(
                failure, f"heal budget exhausted (max_heals_per_step={self.budgets.max_heals_per_step})"
            )
        if not self._normal_since_heal:
            return self._give_up(failure, "the healer could not break it (no normal state between two heals)")
        screen = self._latest.screen if self._latest else None
        view = HealerView(
            failure=failure,
            page_summary=_page_line(screen),
            recent=tuple(_summary(r) for r in self._records[-3:]),
            heals_this_step=len(current.heals),
            skip_allowed=self.machine.allow_skip,
            screen=screen,
        )
        asked = self.clock.now()
        decision = await self.roles.healer.heal(view)
        healed_in_ms = _ms_since(self.clock, asked)
        current.last_heal = (view, decision)
        self._add_usage(decision.usage)
        record = HealRecord(
            state=failure.state,
            cause=failure.cause,
            layer=decision.layer,
            action=decision.action.value,
            reason=decision.reason,
            remedy=decision.remedy.describe() if decision.remedy else "",
        )
        current.heals.append(record)
        if failure is current.first_failure and current.root_layer is None:
            current.root_layer = decision.layer
        self._emit(
            "role.call",
            ts=self.clock.now(),
            role="healer",
            latency_ms=healed_in_ms,
            cause=failure.cause,
            layer=decision.layer.value,
            action=decision.action.value,
            reason=decision.reason,
            step=current.index,
        )
        self._normal_since_heal = False
        if decision.action is HealAction.ABORT:
            return self._give_up(failure, f"healer gave up: {decision.reason}")
        if decision.action is HealAction.SKIP:
            if not self.machine.allow_skip:
                return self._give_up(failure, "healer wanted to skip but the machine does not allow skipping")
            self._skipping = True
            return "skipped", {"reason": decision.reason}
        if decision.remedy is not None:
            await self._perform_remedy(decision.remedy)
        if decision.action is HealAction.REPLAN:
            current.replanned = current.step or current.replanned
            current.step = None
        self._retries.clear()
        return "healed", {"reason": f"{decision.action.value}: {decision.reason}"}

    async def _perform_remedy(self, remedy: Step) -> None:
        location: Location | None = None
        screen = self._latest.screen if self._latest else self._current.before.screen if self._current.before else None
        if screen is None:
            return
        if remedy.action in TARGETED_ACTIONS and remedy.target:
            location = await self.roles.locator.locate(LocatorView(target=remedy.target, screen=screen))
            if not location.found:
                return
        request = ExecutionRequest(
            step=remedy,
            action_id=f"{self.run_id}-{next(self._action_ids)}",
            screen=screen,
            location=location,
            text=remedy.value,
        )
        result = await self.roles.executor.execute(request, self.device, self._observe_once)
        self._emit(
            "device.action",
            ts=self.clock.now(),
            step=self._current.index,
            action=remedy.action.value,
            action_id=result.action_id,
            status=result.status.value,
            detail=result.detail,
            remedy=True,
        )

    def _give_up(self, last: Failure, why: str) -> Trigger:
        """End the run on the step's root cause: its first failure, as the healer classified it."""
        current = self._current
        root = current.first_failure or last
        layer = current.root_layer or root.layer
        # The healer's reason often repeats the failure's detail; say it once.
        reason = f"{root.state} failed ({root.cause}): {root.detail}; {why.replace(f': {root.detail}', '')}"
        if last is not root:
            reason += f"; last failure in {last.state} ({last.cause}): {last.detail}"
        trigger = "error" if layer is Layer.ENVIRONMENT else "fail"
        return trigger, {"reason": reason, "layer": layer, "state": root.state}

    async def _next_or_end(self) -> Trigger:
        if self._ending:
            return await self._final_checks()
        outcome = "skipped" if self._skipping else "passed"
        self._skipping = False
        if outcome == "passed":
            self._progress += 1
        self._close_step(outcome)
        return "next", {}

    async def _remember(self, step: Step, observation: Observation) -> None:
        """Keep the labels a passed step was asked to ``remember``, for later ``${name}`` values."""
        kept: list[tuple[str, str]] = []
        for name, target in step.remember:
            location = await self.roles.locator.locate(LocatorView(target=target, screen=observation.screen))
            best = location.best
            element = observation.screen.element(best.element_id) if best else None
            if element is not None:
                value = element.text or element.label
                self.values[name] = value
                kept.append((name, value))
        self._current.remembered = tuple(kept)

    def _close_step(self, outcome: str) -> None:
        current = self._current
        step = current.step or current.replanned
        if step is not None:
            before, after = current.before, current.after
            best = current.location.best if current.location else None
            self._records.append(
                StepRecord(
                    index=current.index,
                    intent=step.describe(),
                    step=step,
                    action_id=current.action_id,
                    decided_by=current.decision.decided_by if current.decision else "scripted",
                    cache_hit=current.decision.cache_hit if current.decision else False,
                    before_fingerprint=before.screen.fingerprint if before else "",
                    before_summary=_page_line(before.screen if before else None),
                    before_observation=before.index if before else None,
                    after_fingerprint=after.screen.fingerprint if after else "",
                    after_summary=_page_line(after.screen if after else None),
                    after_observation=after.index if after else None,
                    candidates=current.location.candidates if current.location else (),
                    target_element=best.element_id if best else None,
                    target_bounds=str(best.bounds) if best else None,
                    execution=current.execution.status.value if current.execution else "",
                    execution_detail=current.execution.detail if current.execution else "",
                    verdict=current.verdict.status.value if current.verdict else "",
                    verdict_reason=current.verdict.reason if current.verdict else "",
                    evidence=current.verdict.evidence if current.verdict else (),
                    llm_judged=current.verdict.llm_judged if current.verdict else False,
                    heals=tuple(current.heals),
                    usage=current.usage,
                    started_at=current.started_at,
                    ended_at=self.clock.now(),
                    outcome=outcome,
                    remembered=current.remembered,
                    children=current.children,
                )
            )
            self._record("step", self._records[-1])
            self._emit("step.end", ts=self.clock.now(), step=current.index, outcome=outcome, heals=len(current.heals))
        self._current = _Current(index=current.index + 1, started_at=self.clock.now())
        self._retries.clear()

    async def _final_checks(self) -> Trigger:
        problems: list[str] = []
        if self.machine.final:
            observation = await self._observe_once()
            verdict = await self.roles.validator.validate(
                ValidatorView(expect=self.machine.final, screen=observation.screen, values=dict(self.values),
                              toasts=observation.toasts)
            )
            self._add_usage(verdict.usage)
            self._current.verdict = verdict
            if verdict.status is not VerdictStatus.PASS:
                problems.append(f"final expectations {verdict.status.value}: {verdict.reason}")
        for name, check in self.machine.outcomes.items():
            answer = check(OutcomeContext(device=self.device, values=dict(self.values)))
            if inspect.isawaitable(answer):
                answer = await answer
            if answer is not True:
                problems.append(f"outcome {name!r} does not hold" + (f": {answer}" if isinstance(answer, str) else ""))
        self._emit("run.final_checks", ts=self.clock.now(), problems=problems)
        if problems:
            return "fail", {"reason": "; ".join(problems), "layer": Layer.VERDICT, "state": table.NEXT_OR_END}
        return "pass", {"reason": "every step and final expectation held"}

    def _result(self) -> RunResult:
        end = self._end
        outcome = Outcome(self.state)
        if (self._current.step or self._current.replanned) is not None and outcome is not Outcome.PASSED:
            self._close_step("failed" if outcome is Outcome.FAILED else outcome.value.lower())
        layer = end.get("layer")
        return RunResult(
            run_id=self.run_id,
            machine=self.machine.name,
            outcome=outcome,
            reason=str(end.get("reason", "")),
            steps=tuple(self._records),
            layer=Layer(layer) if layer else None,
            failed_state=end.get("state") if outcome is not Outcome.PASSED else None,
            budget=end.get("budget"),
            usage=self._usage,
            wall_s=round(self.clock.now() - self._started, 6),
            transitions=self._transitions,
            path=tuple(self._path),
            observations=self._observations,
            device=self.device.serial,
            run_dir=self.run_dir,
        )


def _substitute(text: str, values: Mapping[str, str]) -> str:
    """Replace ``${name}`` with remembered values (secrets are left to the roles)."""
    out = text
    for name, value in values.items():
        out = out.replace("${" + name + "}", value)
    return out


def _page_line(screen: Any) -> str:
    if screen is None:
        return ""
    title = f" — {screen.title}" if screen.title else ""
    activity = f"/{screen.activity}" if screen.activity else ""
    return f"{screen.package}{activity}{title}"


def _summary(record: StepRecord) -> StepSummary:
    return StepSummary(
        index=record.index,
        intent=record.intent,
        action=record.step.action.value,
        target=record.step.target,
        outcome=record.outcome,
    )


def _no_visible_effect(before: Observation, after: Observation) -> bool:
    """True when nothing outside the status and navigation bars differs between the two screens.

    Compared element by element, digits included (a quantity going from 1 to 2 is an effect even
    though the fingerprint ignores counters): only then is repeating the action known to be safe.
    """
    from fsm_runner.perception import diff_screens

    diff = diff_screens(before.screen, after.screen)
    if diff.windows_opened or diff.windows_closed:
        return False
    bars = {
        w.index for w in (*before.screen.windows, *after.screen.windows)
        if w.kind in (WindowKind.STATUS_BAR, WindowKind.NAVIGATION_BAR)
    }
    touched = [*diff.added, *diff.removed, *(change.after for change in diff.changed)]
    return all(element.window in bars for element in touched)


def _ms_since(clock: Clock, started: float) -> float:
    return round((clock.now() - started) * 1000.0, 2)


def _earlier_line(records: list[StepRecord]) -> str:
    """One line for the steps before the last five: how many, and the intents of the latest ten."""
    if not records:
        return ""
    latest = "; ".join(f"{r.index + 1}. {r.intent} ({r.outcome})" for r in records[-10:])
    more = f"{len(records) - 10} earlier steps, then " if len(records) > 10 else ""
    return more + latest


def _budget_summary(machine: Machine) -> dict[str, Any]:
    b = machine.budgets
    return {
        "max_steps": b.max_steps,
        "max_heals_per_step": b.max_heals_per_step,
        "max_llm_calls": b.max_llm_calls,
        "max_tokens": b.max_tokens,
        "max_wall_s": b.max_wall_s,
    }
