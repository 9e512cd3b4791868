"""Machine files: Python files that define ``MACHINE = Machine(...)`` or ``MACHINES = [...]``.

Each file is imported on its own; a file that fails to import becomes a
:class:`LoadProblem` with the file, the line and the Python error, and the
machines of every other file are still collected.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import attrs

from fsm_runner.machine import Machine


@attrs.frozen
class LoadProblem:
    """A machine file that could not be used; ``line`` is 0 when no line is to blame."""

    path: str
    line: int
    error: str

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.error}"


@attrs.frozen
class MachineFile:
    """The machines one file defines, in the order it lists them."""

    path: str
    machines: tuple[Machine, ...]


@attrs.frozen
class Collection:
    files: tuple[MachineFile, ...]
    problems: tuple[LoadProblem, ...]

    @property
    def machines(self) -> tuple[Machine, ...]:
        return tuple(m for f in self.files for m in f.machines)


def machine_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[LoadProblem]]:
    """Expand folders into their ``.py`` files (recursively, sorted; ``_``-prefixed files other than
    ``__init__.py``, which may list a package's machines, are skipped)."""
    found: list[Path] = []
    problems: list[LoadProblem] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(
                p for p in sorted(path.rglob("*.py")) if p.name == "__init__.py" or not p.name.startswith(("_", "."))
            )
        elif path.is_file() and path.suffix == ".py":
            found.append(path)
        elif path.exists():
            problems.append(LoadProblem(str(path), 0, "is not a .py file or a folder of them"))
        else:
            problems.append(LoadProblem(str(path), 0, "does not exist"))
    return list(dict.fromkeys(found)), problems


def load_machine_file(path: str | Path) -> MachineFile | LoadProblem:
    """Import ``path`` and return its machines, or the problem (file, line, error) that stopped it."""
    file = Path(path).resolve()
    shown = str(path)
    try:
        module = _import(file)
    except SyntaxError as err:
        return LoadProblem(shown, err.lineno or 0, f"SyntaxError: {err.msg}")
    except Exception as err:
        return LoadProblem(shown, _line_in(file, err), f"{type(err).__name__}: {err}")
    if module is None:
        return LoadProblem(shown, 0, "cannot be imported as a Python module")
    machines: list[object] = []
    if hasattr(module, "MACHINE"):
        machines.append(module.MACHINE)
    if hasattr(module, "MACHINES"):
        listed = module.MACHINES
        if not isinstance(listed, list | tuple):
            return LoadProblem(shown, 0, f"MACHINES must be a list of Machine, not {type(listed).__name__}")
        machines.extend(listed)
    wrong = [type(m).__name__ for m in machines if not isinstance(m, Machine)]
    if wrong:
        return LoadProblem(shown, 0, f"MACHINE/MACHINES hold {', '.join(wrong)} instead of fsm_runner.Machine")
    return MachineFile(shown, tuple(m for m in machines if isinstance(m, Machine)))


def collect(paths: Iterable[str | Path]) -> Collection:
    """Every machine in ``paths``; files given by name must define one, files found in folders may not."""
    given = [Path(p) for p in paths]
    files, problems = machine_paths(given)
    loaded: list[MachineFile] = []
    for path in files:
        outcome = load_machine_file(path)
        if isinstance(outcome, LoadProblem):
            problems.append(outcome)
        elif outcome.machines:
            loaded.append(outcome)
        elif path in given:
            problems.append(LoadProblem(str(path), 0, "defines no MACHINE or MACHINES"))
    return Collection(tuple(loaded), tuple(problems))


def _import(file: Path) -> ModuleType | None:
    """Import ``file``: by its dotted name when it sits in a package (so relative imports work), else alone."""
    dotted = _package_name(file)
    if dotted is not None:
        return importlib.import_module(dotted)
    name = "fsm_runner_machines_" + hashlib.sha1(str(file).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _package_name(file: Path) -> str | None:
    """``pkg.sub.mod`` for a file inside packages whose top resolves to that very folder; None otherwise.

    A top package that is not importable yet has its parent folder put on ``sys.path``
    (as pytest does), so machine packages import the same way from the CLI and from tests.
    """
    parts = [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None
    top = parts[0]
    spec = importlib.util.find_spec(top) if top not in sys.modules else sys.modules[top].__spec__
    if spec is None:
        sys.path.insert(0, str(folder))
        return ".".join(parts)
    locations = [Path(p).resolve() for p in (spec.submodule_search_locations or [])]
    return ".".join(parts) if (folder / top).resolve() in locations else None


def _line_in(file: Path, err: BaseException) -> int:
    """The line of ``file`` that the traceback passed through last (0 when it never did)."""
    line = 0
    for frame in traceback.extract_tb(err.__traceback__):
        if Path(frame.filename).resolve() == file:
            line = frame.lineno or 0
    return line
