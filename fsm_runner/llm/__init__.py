"""The LLM layer: an OpenAI-compatible client, per-role profiles, and LLM-backed planner, locator and validator.

Offline roles stay the default; :func:`llm_roles` puts the model only where a
machine needs it (a goal-only plan, prose expectations, a locator in doubt),
behind a decision cache that lets an unchanged flow re-run with no calls.
"""

from fsm_runner.llm.cache import CachedDecision, CacheMode, DecisionCache
from fsm_runner.llm.client import ChatReply, LlmClient, LlmUnavailableError, RetryPolicy
from fsm_runner.llm.locator import LlmLocator
from fsm_runner.llm.oracle import LlmValidator
from fsm_runner.llm.page_map import PageMap, load_page_map, record_page_map
from fsm_runner.llm.planner import LlmPlanner
from fsm_runner.llm.profiles import Endpoint, Profile, default_profiles
from fsm_runner.llm.replay import ReplayEntry, ReplayFile
from fsm_runner.llm.roles import client_from_env, llm_roles, needs_llm
from fsm_runner.llm.schema import AnswerError

__all__ = [
    "AnswerError",
    "CacheMode",
    "CachedDecision",
    "ChatReply",
    "DecisionCache",
    "Endpoint",
    "LlmClient",
    "LlmLocator",
    "LlmPlanner",
    "LlmUnavailableError",
    "LlmValidator",
    "PageMap",
    "Profile",
    "ReplayEntry",
    "ReplayFile",
    "RetryPolicy",
    "client_from_env",
    "default_profiles",
    "llm_roles",
    "load_page_map",
    "needs_llm",
    "record_page_map",
]
