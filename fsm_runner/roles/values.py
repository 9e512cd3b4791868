"""Remembered values and secrets: ``${name}``, ``${price*2}`` and ``${secret:NAME}``.

Remembered values are substituted everywhere (step values and expectations);
secrets are resolved only into the executor's text and are redacted from
anything written. Arithmetic inside ``${...}`` is evaluated by a tiny
whitelist evaluator over the parsed expression, never by ``eval``.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation

from fsm_runner.errors import ConfigurationError, DefinitionError
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.steps import Step

#: Environment variables with this prefix hold secrets: FSM_RUNNER_SECRET_PASSWORD -> ${secret:PASSWORD}.
SECRET_ENV_PREFIX = "FSM_RUNNER_SECRET_"

_PLACEHOLDER = re.compile(r"\$\{([^{}]+)\}")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Values(Mapping[str, str]):
    """Values read by earlier steps, by name; ``substitute`` fills ``${name}`` placeholders."""

    def __init__(self, initial: Mapping[str, str] | None = None) -> None:
        self._values: dict[str, str] = dict(initial or {})

    def __getitem__(self, name: str) -> str:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def remember(self, name: str, value: str) -> None:
        """Keep ``value`` under ``name`` for later steps (a later value replaces an earlier one)."""
        if not _NAME.fullmatch(name):
            raise DefinitionError(
                f"cannot remember a value as {name!r}",
                field="step.remember",
                fix="use a name made of letters, digits and underscores, such as 'price'",
            )
        self._values[name] = value

    def substitute(self, text: str) -> str:
        """``text`` with every ``${name}`` and ``${expression}`` filled; ``${secret:...}`` left as is."""
        return substitute(text, self._values)


def substitute(text: str, values: Mapping[str, str]) -> str:
    """Fill ``${name}`` and arithmetic placeholders from ``values``; secrets stay as placeholders.

    An unknown name raises DefinitionError naming it and the fix.
    """

    def fill(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        if inner.startswith("secret:"):
            return match.group(0)
        if inner in values:
            return values[inner]
        return evaluate(inner, values)

    return _PLACEHOLDER.sub(fill, text)


def evaluate(expression: str, values: Mapping[str, str]) -> str:
    """Evaluate ``+ - * / // %`` over numbers and remembered values; keeps the first value's format.

    ``price*2`` with price "$12.50" gives "$25.00". Anything else raises DefinitionError.
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as err:
        raise _bad_expression(expression, "it is not an arithmetic expression") from err
    formats: list[tuple[str, str, int]] = []
    result = _eval_node(tree.body, values, expression, formats)
    prefix, suffix, decimals = formats[0] if formats else ("", "", 0)
    decimals = max([d for _, _, d in formats] + [decimals])
    if decimals == 0 and result == result.to_integral_value():
        number = str(int(result))
    else:
        number = f"{result:.{decimals or 2}f}"
    return f"{prefix}{number}{suffix}"


def _eval_node(node: ast.expr, values: Mapping[str, str], source: str, formats: list[tuple[str, str, int]]) -> Decimal:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return Decimal(str(node.value))
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise DefinitionError(
                f"no remembered value named {node.id!r}",
                field=f"${{{source}}}",
                fix=f"remember it in an earlier step: remember={{'{node.id}': 'the element to read'}}",
            )
        return _number_of(values[node.id], node.id, formats)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _eval_node(node.operand, values, source, formats)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _eval_node(node.left, values, source, formats)
        right = _eval_node(node.right, values, source, formats)
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                return left / right
            if isinstance(node.op, ast.FloorDiv):
                return left // right
            if isinstance(node.op, ast.Mod):
                return left % right
        except (ArithmeticError, InvalidOperation) as err:
            raise _bad_expression(source, str(err) or "arithmetic error") from err
    raise _bad_expression(source, "only numbers, remembered names and + - * / // % are allowed")


def _number_of(text: str, name: str, formats: list[tuple[str, str, int]]) -> Decimal:
    match = _NUMBER.search(text)
    if match is None:
        raise DefinitionError(
            f"remembered value {name!r} = {text!r} holds no number",
            field=f"${{{name}}}",
            fix="remember an element whose text is a number or a price",
        )
    digits = match.group(0).replace(",", "")
    decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
    formats.append((text[: match.start()], text[match.end() :], decimals))
    return Decimal(digits)


def _bad_expression(expression: str, why: str) -> DefinitionError:
    return DefinitionError(
        f"cannot evaluate ${{{expression}}}: {why}",
        field=f"${{{expression}}}",
        fix="write a remembered name or simple arithmetic such as ${price*2}",
    )


class Secrets:
    """Where ``${secret:NAME}`` comes from: a mapping first, then ``FSM_RUNNER_SECRET_<NAME>`` variables."""

    def __init__(self, values: Mapping[str, str] | None = None, *, environ: Mapping[str, str] | None = None) -> None:
        self._values = dict(values or {})
        self._environ = os.environ if environ is None else environ

    def get(self, name: str) -> str:
        """The secret's value; ConfigurationError naming the variable to set when it is missing."""
        if name in self._values:
            return self._values[name]
        variable = SECRET_ENV_PREFIX + name
        if variable in self._environ:
            return self._environ[variable]
        raise ConfigurationError(f"secret {name!r} is not set; export {variable}=... or pass it in the secrets mapping")

    def resolve(self, text: str) -> str:
        """``text`` with every ``${secret:NAME}`` replaced by its value (for the executor only)."""
        return _PLACEHOLDER.sub(
            lambda m: self.get(m.group(1).strip()[7:]) if m.group(1).strip().startswith("secret:") else m.group(0),
            text,
        )

    def known(self) -> dict[str, str]:
        """Every secret this source can give, by name."""
        found = {k[len(SECRET_ENV_PREFIX) :]: v for k, v in self._environ.items() if k.startswith(SECRET_ENV_PREFIX)}
        found.update(self._values)
        return found

    def redact(self, text: str) -> str:
        """``text`` with any secret value replaced by its ``${secret:NAME}`` placeholder; longest first."""
        for name, value in sorted(self.known().items(), key=lambda kv: -len(kv[1])):
            if value:
                text = text.replace(value, f"${{secret:{name}}}")
        return text


def read_remembered(step: Step, screen: Screen, locator: RuleLocator, values: Values) -> dict[str, str]:
    """Read each ``step.remember`` target's text from ``screen`` into ``values``; returns what was read.

    A target that cannot be located is left out of the result (and of ``values``).
    """
    read: dict[str, str] = {}
    for name, description in step.remember:
        best = locator.find(description, screen).best
        element = screen.element(best.element_id) if best else None
        if element is None:
            continue
        value = element.text or element.label or element.content_desc
        values.remember(name, value)
        read[name] = value
    return read
