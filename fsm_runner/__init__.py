"""fsm-runner: mobile UI tests as explicit finite-state machines."""

__all__: list[str] = []
