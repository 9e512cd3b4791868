"""Machine definitions: the standard UI-test machine and the Demo Shop machines."""

__all__: list[str] = []
