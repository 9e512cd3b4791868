"""The ``--llm SCHEME:ARG`` planners for the entry points: ``replay:FILE``, ``profile:NAME`` and ``env:``.

Each is a ``launch.PlannerFactory`` (argument, machine, config) -> Planner;
:func:`register` adds them to a registry such as ``fsm_runner.launch.PLANNERS``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, MutableMapping
from pathlib import Path

from fsm_runner.config import Config
from fsm_runner.errors import ConfigurationError
from fsm_runner.llm.cache import DecisionCache
from fsm_runner.llm.client import LlmClient
from fsm_runner.llm.planner import LlmPlanner
from fsm_runner.llm.profiles import Endpoint, default_profiles
from fsm_runner.machine import Machine
from fsm_runner.roles.base import Planner
from fsm_runner.roles.values import Secrets

Factory = Callable[[str, Machine, Config], Planner]


def decision_cache(config: Config) -> DecisionCache | None:
    """The decision cache the settings ask for (a SQLite file, its folder created), or None when disabled."""
    if not config.cache.enabled:
        return None
    path = Path(config.cache.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return DecisionCache(path)


def replay_planner(argument: str, machine: Machine, config: Config) -> Planner:
    """An LLM planner answered by a loopback server replaying the answers recorded in file ``argument``.

    The server runs in a daemon thread for the rest of the process.
    """
    from fsm_runner.testing.chat_server import start_replay_server

    base_url, _ = start_replay_server(argument)
    client = LlmClient(Endpoint(base_url, "replay", "replay"))
    return LlmPlanner(client, default_profiles("replay")["planner"], machine=machine.name, cache=decision_cache(config))


def profile_planner(argument: str, machine: Machine, config: Config) -> Planner:
    """An LLM planner for the ``[llm.profiles.NAME]`` endpoint of fsm-runner.toml."""
    profile = config.llm.profiles.get(argument)
    if profile is None:
        known = ", ".join(sorted(config.llm.profiles)) or "none"
        raise ConfigurationError(f"llm profile {argument!r} is not in fsm-runner.toml (known: {known})")
    key = os.environ.get(profile.api_key_env, "").strip()
    if not key:
        raise ConfigurationError(f"llm profile {argument!r} reads its key from {profile.api_key_env}, which is not set")
    client = LlmClient(Endpoint(profile.base_url, key, profile.model), redact=Secrets().redact)
    planner = default_profiles(profile.model, timeout_s=profile.timeout_s)["planner"]
    return LlmPlanner(client, planner, machine=machine.name, cache=decision_cache(config))


def env_planner(argument: str, machine: Machine, config: Config) -> Planner:
    """An LLM planner for the endpoint in the environment (``FSM_RUNNER_LLM_*`` or ``OPENAI_*``)."""
    endpoint = Endpoint.from_env(needed_by=f"machine {machine.name!r}")
    client = LlmClient(endpoint, redact=Secrets().redact)
    return LlmPlanner(client, default_profiles(endpoint.model)["planner"], machine=machine.name,
                      cache=decision_cache(config))


SCHEMES: dict[str, Factory] = {"replay": replay_planner, "profile": profile_planner, "env": env_planner}


def register(registry: MutableMapping[str, Factory]) -> None:
    """Offer the LLM schemes in ``registry`` (``fsm_runner.launch.PLANNERS``)."""
    registry.update(SCHEMES)
