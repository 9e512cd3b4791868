"""Hypothesis strategies for role answers and budgets, to property-test machines."""

from __future__ import annotations

from hypothesis import strategies as st

from fsm_runner.budgets import Budgets
from fsm_runner.testing.roles import EXEC_ANSWERS, HEAL_ANSWERS, PLAN_ANSWERS, VERDICT_ANSWERS, RoleAnswers


def role_answers(max_len: int = 8) -> st.SearchStrategy[RoleAnswers]:
    """Arbitrary answers for every role, including failures, raises and slow answers."""
    return st.builds(
        RoleAnswers,
        screens=st.lists(st.one_of(st.none(), st.sampled_from("abcdef")), max_size=max_len).map(tuple),
        plans=st.lists(st.sampled_from(PLAN_ANSWERS), max_size=max_len).map(tuple),
        locations=st.lists(st.one_of(st.none(), st.booleans()), max_size=max_len).map(tuple),
        executions=st.lists(st.sampled_from(EXEC_ANSWERS), max_size=max_len).map(tuple),
        verdicts=st.lists(st.sampled_from(VERDICT_ANSWERS), max_size=max_len).map(tuple),
        heals=st.lists(st.sampled_from(HEAL_ANSWERS), max_size=max_len).map(tuple),
        llm_calls=st.lists(st.integers(0, 3), max_size=max_len).map(tuple),
        delays=st.lists(st.sampled_from((0.0, 0.0, 1.0, 30.0, 500.0)), max_size=max_len).map(tuple),
    )


def budgets() -> st.SearchStrategy[Budgets]:
    """Small, valid budgets so that every kind of exhaustion is reachable quickly."""
    return st.builds(
        Budgets,
        max_steps=st.integers(1, 12),
        max_heals_per_step=st.integers(0, 4),
        max_retries_per_state=st.integers(0, 4),
        max_checks_per_step=st.integers(1, 10),
        max_llm_calls=st.one_of(st.none(), st.integers(1, 20)),
        max_tokens=st.one_of(st.none(), st.integers(1, 500)),
        max_wall_s=st.sampled_from((30.0, 200.0, 900.0)),
        state_timeouts=st.dictionaries(st.sampled_from(("PLAN", "VERIFY", "OBSERVE")), st.sampled_from((5.0, 60.0))),
    )
