"""simpleeval: one Python expression, parsed once, evaluated by walking its AST."""

from __future__ import annotations

import ast
from typing import Any

import simpleeval  # type: ignore[import-untyped]

from .base import Peer, Refused


class SimpleEval(Peer):
    name = "simpleeval"
    budget = "value caps only (process-wide globals, e.g. at most 10,000 comprehension items)"
    notes = {
        "squares": "refuses n > 10,000: MAX_COMPREHENSION_LENGTH (a process-wide cap) "
        "stops the comprehension",
        "items": "refuses n > 10,000: MAX_COMPREHENSION_LENGTH",
    }

    largest = {"squares": simpleeval.MAX_COMPREHENSION_LENGTH, "items": simpleeval.MAX_COMPREHENSION_LENGTH}

    def __init__(self) -> None:
        self._eval = simpleeval.EvalWithCompoundTypes(functions={"range": range, "str": str})
        self._find_plans = self._parse(
            '[{"$type": "Plan", "name": "Team", "seats": teamSize, "monthlyPrice": 20}]'
        )
        self._squares = self._parse("[i * i for i in range(n)]")
        self._items = self._parse('["item " + str(i) for i in range(n)]')

    def _parse(self, expression: str) -> ast.AST:
        parsed: ast.AST = self._eval.parse(expression)
        return parsed

    def _run(self, parsed: ast.AST, **names: Any) -> Any:
        self._eval.names = names
        try:
            return self._eval.eval("", previously_parsed=parsed)
        except simpleeval.IterableTooLong as refused:
            raise Refused(str(refused)) from refused

    def find_plans(self, team_size: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._run(self._find_plans, teamSize=team_size)
        return result

    def squares(self, n: int) -> list[int]:
        result: list[int] = self._run(self._squares, n=n)
        return result

    def items(self, n: int) -> list[str]:
        result: list[str] = self._run(self._items, n=n)
        return result
