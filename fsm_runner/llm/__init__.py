"""The LLM layer: an OpenAI-compatible client, per-role profiles, and LLM-backed planner, locator and validator."""
