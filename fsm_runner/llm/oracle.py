"""The prose oracle: the validator's LLM fallback, only for ``Check.PROSE`` expectations.

Every other expectation is decided by the rule validator; when those already
fail (or are not yet true) the model is not asked. Its verdicts are labelled
``llm_judged`` so reports show that a model, not code, decided.
"""

from __future__ import annotations

import attrs

from fsm_runner.llm.client import LlmClient, Messages
from fsm_runner.llm.profiles import Profile
from fsm_runner.llm.schema import Judgement, ValidatorAnswer, ask
from fsm_runner.perception import render
from fsm_runner.roles.base import Evidence, ValidatorView, Verdict, VerdictStatus
from fsm_runner.roles.validator import RuleValidator
from fsm_runner.roles.values import substitute
from fsm_runner.steps import Check, Expect

_STATUS = {"pass": VerdictStatus.PASS, "fail": VerdictStatus.FAIL, "unknown": VerdictStatus.UNKNOWN}


def statement(expect: Expect, values: dict[str, str]) -> str:
    """The sentence the model judges: the prose with remembered values filled (secrets stay placeholders)."""
    text = substitute(expect.value or "", values)
    return f"It is NOT the case that: {text}" if expect.negate else text


def validator_messages(view: ValidatorView, prose: tuple[Expect, ...]) -> Messages:
    """The statements and the validator's compact screen; no action history exists in the view."""
    values = dict(view.values)
    lines = ["STATEMENTS:"]
    lines += [f"{number}. {statement(e, values)}" for number, e in enumerate(prose, start=1)]
    if view.toasts:
        lines.append(f"TOASTS: {'; '.join(view.toasts)}")
    lines += ["SCREEN:", render(view.screen, "validator")]
    return [{"role": "user", "content": "\n".join(lines)}]


class LlmValidator:
    """Implements ``Validator``: rules for everything, the model for prose only."""

    def __init__(self, client: LlmClient, profile: Profile, *, rules: RuleValidator | None = None) -> None:
        self.client = client
        self.profile = profile
        self.rules = rules or RuleValidator()

    async def validate(self, view: ValidatorView) -> Verdict:
        prose = tuple(e for e in view.expect if e.check is Check.PROSE)
        if not prose:
            return self.rules.decide(view)
        coded = tuple(e for e in view.expect if e.check is not Check.PROSE)
        ruled = self.rules.decide(attrs.evolve(view, expect=coded)) if coded else None
        if ruled is not None and ruled.status in (VerdictStatus.FAIL, VerdictStatus.NOT_YET):
            return ruled

        def check(answer: ValidatorAnswer) -> tuple[Judgement, ...]:
            if len(answer.verdicts) != len(prose):
                raise ValueError(f"give exactly {len(prose)} verdicts, one per statement, in order")
            for judgement in answer.verdicts:
                if judgement.status not in _STATUS:
                    raise ValueError(f"status {judgement.status!r} is not one of pass, fail, unknown")
            return answer.verdicts

        judgements, usage = await ask(
            self.client,
            self.profile,
            validator_messages(view, prose),
            ValidatorAnswer,
            check,
            key="; ".join(e.value or "" for e in prose),
            fingerprint=view.screen.fingerprint,
        )
        evidence = list(ruled.evidence if ruled else ())
        statuses = [ruled.status] if ruled else []
        for expect, judgement in zip(prose, judgements, strict=True):
            status = _STATUS[judgement.status]
            statuses.append(status)
            evidence.append(Evidence(expect.describe(), status is VerdictStatus.PASS, f"model: {judgement.reason}"))
        if VerdictStatus.FAIL in statuses:
            overall = VerdictStatus.FAIL
        elif VerdictStatus.UNKNOWN in statuses:
            overall = VerdictStatus.UNKNOWN
        else:
            overall = VerdictStatus.PASS
        reasons = "; ".join(f"{e.expect}: {e.found}" for e in evidence if not e.held) or "model judged every statement"
        return Verdict(overall, tuple(evidence), reason=reasons, llm_judged=True, usage=usage)
