#!/usr/bin/env python3
"""Atheris target for the Python boundary: arbitrary Python values into ``nx_agent``.

Every input builds nested Python values (dicts, lists, tuples, ints small and huge, floats with
NaN and infinities, strings with lone surrogates, bytes, sets, subclasses of dict, list, str and
int, objects with hostile ``__eq__``, ``__hash__``, ``__str__`` and ``__iter__``, cycles and deep
nesting) and hands them to ``nx_agent.ir.evaluate_function``, ``call_function``,
``measure_input_size`` and ``Limits`` over the conformance corpus's programs (assembled once at
start-up), with a small operation budget. Whatever happens, the only exceptions that may escape
are ``nx_agent.NxError`` subclasses, and a result must be a plain JSON-like value.

The tools of ``nx_agent.create_agent_tools`` over the execute tests' agent
(``tests/agent_programs.py``: function, context, ``http`` and ``builtin`` tools) get the same
values as model input, context and call id, and their request function and executor answer with
generated values: ``execute`` must never raise and must answer a well-formed result (§5.9) with
a package code (§5.10) or the host's own.

Usage: ``python3 fuzz/boundary.py [CORPUS_DIR] [libFuzzer flags]`` (``fuzz/run.sh boundary N``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import atheris

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

with atheris.instrument_imports():
    import nx_agent
    from nx_agent import ir

from agent_programs import execute_definition, http_definition, link_execute_program  # noqa: E402
from corpus import image, programs  # noqa: E402
from hostile import Boom, RaisingDict, RaisingList  # noqa: E402
from nx_agent import examples  # noqa: E402
from nx_agent.agent.results import PACKAGE_ERROR_CODES  # noqa: E402

BUDGET = 10_000


class Case:
    """One corpus entrypoint, linked."""

    def __init__(self, program: ir.Program, identity: str, function: str, args: list[Any]) -> None:
        self.program = program
        self.identity = identity
        self.function = function
        self.args = args


def load_cases() -> list[Case]:
    cases = []
    for program in programs():
        modules = {i: ir.prepare_module(image(program, m)) for i, m in program.modules.items()}
        spec = program.path / "program.json"
        if spec.is_file():
            entries = json.loads(spec.read_text("utf-8")).get("entrypoints", [])
        else:
            results = json.loads((program.path / "expected" / "results.json").read_text("utf-8"))
            entries = [dict(zip(("module", "function"), key.split("::"))) for key in results]
        linked: dict[str, ir.Program] = {}
        for entry in entries:
            identity = entry["module"]
            if identity not in modules:
                continue
            if identity not in linked:
                linked[identity] = ir.link_program(modules[identity], modules)
            cases.append(Case(linked[identity], identity, entry["function"], entry.get("arguments", [])))
    if not cases:  # no corpus (see tests/corpus.py): the bundled example alone
        example = examples.link_example()
        cases.append(Case(example, example.entry.identity, "findPlans", [5]))
    return cases


# ---- hostile values ----------------------------------------------------------------------------


class Str(str):
    pass


class Int(int):
    pass


class Float(float):
    pass


class List(list):  # type: ignore[type-arg]
    pass


class Tuple(tuple):  # type: ignore[type-arg]
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


class EndlessIter(list):  # type: ignore[type-arg]
    """Holds two items but iterates forever."""

    def __iter__(self) -> Iterator[Any]:
        while True:
            yield 1


class LyingLen(list):  # type: ignore[type-arg]
    def __len__(self) -> int:
        return 1 << 40


class EqStr(str):
    """A string key whose comparisons raise."""

    def __eq__(self, other: object) -> bool:
        raise Boom("__eq__")

    def __hash__(self) -> int:
        return str.__hash__(self)


class Unprintable:
    def __str__(self) -> str:
        raise Boom("__str__")

    def __repr__(self) -> str:
        raise Boom("__repr__")

    def __eq__(self, other: object) -> bool:
        raise Boom("__eq__")

    def __hash__(self) -> int:
        raise Boom("__hash__")


class UnprintableInt(int):
    def __str__(self) -> str:
        raise Boom("__str__")

    def __repr__(self) -> str:
        raise Boom("__repr__")

    def __index__(self) -> int:
        raise Boom("__index__")


class Mutator(list):  # type: ignore[type-arg]
    """Changes the container it sits in while it is being read."""

    def __init__(self, target: Any) -> None:
        super().__init__([1, 2])
        self.target = target

    def __iter__(self) -> Iterator[Any]:
        if isinstance(self.target, dict):
            self.target.clear()
            for i in range(50):
                self.target[f"k{i}"] = i
        elif isinstance(self.target, list):
            self.target.clear()
        yield 1


class Generator:
    """Builds Python values from fuzz input."""

    def __init__(self, fdp: atheris.FuzzedDataProvider) -> None:
        self.fdp = fdp
        self.made = 0

    @atheris.instrument_func
    def int_(self) -> int:
        f = self.fdp
        kind = f.ConsumeIntInRange(0, 7)
        if kind == 0:
            return int(f.ConsumeIntInRange(-300, 300))
        if kind == 1:
            return int(f.ConsumeInt(8))
        if kind == 2:
            return int(f.PickValueInList([2**53 - 1, 2**53, 2**53 + 1, -(2**53), 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64]))
        if kind == 3:
            return int(f.ConsumeInt(f.ConsumeIntInRange(9, 64)))
        if kind == 4:
            return 10 ** f.ConsumeIntInRange(19, 6000) * (1 if f.ConsumeBool() else -1)
        if kind == 5:
            return Int(f.ConsumeInt(4))
        if kind == 6:
            return UnprintableInt(f.ConsumeInt(4) if f.ConsumeBool() else 2**80)
        return bool(f.ConsumeBool())

    @atheris.instrument_func
    def float_(self) -> float:
        f = self.fdp
        kind = f.ConsumeIntInRange(0, 3)
        if kind == 0:
            return float(f.PickValueInList([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 5e-324, 1.7976931348623157e308, 2.0**53, 0.1]))
        if kind == 1:
            return Float(f.ConsumeRegularFloat())
        return float(f.ConsumeFloat())

    @atheris.instrument_func
    def str_(self) -> str:
        f = self.fdp
        kind = f.ConsumeIntInRange(0, 6)
        if kind == 0:
            return str(f.ConsumeUnicode(f.ConsumeIntInRange(0, 40)))
        if kind == 1:
            return "".join(chr(f.ConsumeIntInRange(0xD800, 0xDFFF)) for _ in range(f.ConsumeIntInRange(1, 3)))
        if kind == 2:
            return Str(f.ConsumeUnicodeNoSurrogates(20))
        if kind == 3:
            return EqStr(f.ConsumeUnicodeNoSurrogates(10))
        if kind == 4:
            return str(f.PickValueInList(["$type", "Function", "module", "name", "value", "nx.int", "main.nx", ""]))
        if kind == 5:
            return "é" * f.ConsumeIntInRange(0, 70_000)
        return str(f.ConsumeUnicodeNoSurrogates(f.ConsumeIntInRange(0, 300)))

    @atheris.instrument_func
    def key(self) -> Any:
        f = self.fdp
        if f.ConsumeIntInRange(0, 15) == 0:
            return f.PickValueInList([1, None, (1, 2), 1.5, b"k", frozenset(), Int(3), True])
        if f.ConsumeIntInRange(0, 20) == 0:
            return Unprintable()
        return self.str_()

    def fill(self, d: dict[Any, Any], count: int, depth: int) -> dict[Any, Any]:
        """``d`` with ``count`` generated members (a key whose comparison raises may be left out)."""
        for _ in range(count):
            try:
                d[self.key()] = self.value(depth + 1)
            except Boom:
                pass
        return d

    @atheris.instrument_func
    def value(self, depth: int = 0) -> Any:
        f = self.fdp
        self.made += 1
        if depth > 40 or self.made > 3000 or f.remaining_bytes() == 0:
            return None
        kind = f.ConsumeIntInRange(0, 24)
        if kind == 0:
            return None
        if kind in (1, 2):
            return self.int_()
        if kind == 3:
            return self.float_()
        if kind in (4, 5):
            return self.str_()
        if kind in (6, 7):
            return [self.value(depth + 1) for _ in range(f.ConsumeIntInRange(0, 6))]
        if kind == 8:
            return tuple(self.value(depth + 1) for _ in range(f.ConsumeIntInRange(0, 4)))
        if kind in (9, 10):
            d: dict[Any, Any] = {}
            if f.ConsumeBool():
                d["$type"] = self.value(depth + 1) if f.ConsumeIntInRange(0, 4) == 0 else self.str_()
            return self.fill(d, f.ConsumeIntInRange(0, 5), depth)
        if kind == 11:
            return self.fill(Dict(), f.ConsumeIntInRange(0, 3), depth)
        if kind == 12:
            return List(self.value(depth + 1) for _ in range(f.ConsumeIntInRange(0, 3)))
        if kind == 13:
            return Tuple(self.value(depth + 1) for _ in range(f.ConsumeIntInRange(0, 3)))
        if kind == 14:
            return f.PickValueInList([b"bytes", bytearray(b"x"), memoryview(b"m"), {1, 2}, frozenset({3}), 1j, object(), Unprintable(), range(3), ...])
        if kind == 15:
            return f.PickValueInList([RaisingList([1, 2]), EndlessIter([1, 2]), LyingLen([1]), RaisingDict(a=1)])
        if kind == 16:
            # Cycles, through lists and dicts.
            cyclic: list[Any] = [self.value(depth + 1)]
            if f.ConsumeBool():
                cyclic.append(cyclic)
                return cyclic
            holder: dict[str, Any] = {"a": cyclic}
            cyclic.append(holder)
            return holder
        if kind == 17:
            # Deep nesting, past the value nesting limit or not.
            nested = self.value(depth + 1)
            for _ in range(f.PickValueInList([f.ConsumeIntInRange(0, 300), 255, 256, 257, 10_000, 200_000])):
                nested = [nested] if f.ConsumeBool() else {"x": nested}
            return nested
        if kind == 18:
            # A container changed while it is read.
            if f.ConsumeBool():
                target: dict[str, Any] = {f"k{i}": i for i in range(5)}
                target["m"] = Mutator(target)
                return target
            items: list[Any] = [1, 2, 3]
            items.insert(1, Mutator(items))
            return items
        if kind == 19:
            # Large, flat.
            return [f.ConsumeIntInRange(0, 9)] * f.ConsumeIntInRange(0, 200_000)
        if kind == 20:
            wide = str(f.ConsumeInt(f.ConsumeIntInRange(1, 12)))
            return {"$type": "nx.int", "value": wide if f.ConsumeBool() else self.value(depth + 1)}
        if kind == 21:
            return {"$type": "Function", "module": self.str_(), "name": self.str_()}
        return self.int_() if kind % 2 else self.str_()


def plain(value: Any, depth: int = 0) -> None:
    """A result must be made of exact JSON-like types."""
    assert depth < 300, "a result nests too deeply"
    kind = type(value)
    if kind in (type(None), bool, int, float, str):
        return
    if kind is list:
        for item in value:
            plain(item, depth + 1)
        return
    if kind is dict:
        for key, item in value.items():
            assert type(key) is str, f"a result key {key!r} is not a str"
            plain(item, depth + 1)
        return
    raise AssertionError(f"a result holds a {kind.__name__}")


CASES: list[Case] = []
TOOLS: list[Any] = []
# What the request function and the builtin executor answer for the current input.
ANSWER: list[Any] = [None]


def host_answer(*_: Any) -> Any:
    answer = ANSWER[0]
    if isinstance(answer, BaseException):
        raise answer
    return answer


def load_tools() -> list[Any]:
    """Every executable tool of the execute and HTTP tests' agents, with a small budget."""
    program = link_execute_program()
    tools = []
    for definition in (execute_definition(), http_definition()):
        created = nx_agent.create_agent_tools(
            json.loads(json.dumps(definition)),
            program,
            request=host_answer,
            executors={"builtin": host_answer},
            max_operations=BUDGET,
            max_arguments_size=2000,
            max_context_size=2000,
        )
        tools.extend(tool for tool in created if hasattr(tool, "execute"))
    return tools


def well_formed(result: Any) -> None:
    """A tool result of agent-package §5.9."""
    assert type(result) is dict and result.get("ok") in (True, False), result
    if result["ok"]:
        assert set(result) <= {"ok", "output", "usage"}, result
        return
    error = result["error"]
    assert set(result) <= {"ok", "error", "usage"}, result
    assert type(error) is dict and set(error) <= {"code", "message", "diagnostics", "limit"}, result
    assert type(error["code"]) is str and error["code"], result
    assert type(error["message"]) is str and error["message"], result
    assert None not in error.values(), result


@atheris.instrument_func
def execute(gen: Generator) -> None:
    """One call of one tool's ``execute``: it must not raise."""
    f = gen.fdp
    tool = TOOLS[f.ConsumeIntInRange(0, len(TOOLS) - 1)]
    names = ["teamSize", "n", "orderId", "context", "$type", "conversationId", "query"]
    value: Any = gen.value()
    if f.ConsumeBool():
        value = {f.PickValueInList(names): gen.value() for _ in range(f.ConsumeIntInRange(0, 3))}
    context: Any = gen.value()
    if f.ConsumeBool():
        context = {"$type": f.PickValueInList(["ChatToolContext", "ToolContext"]), "conversationId": gen.value()}
    call_id: Any = f.PickValueInList(["t1", "call:0"]) if f.ConsumeIntInRange(0, 3) else gen.value()
    answer: Any = {"status": 200, "body": gen.value()} if f.ConsumeBool() else gen.value()
    ANSWER[0] = f.PickValueInList([answer, answer, Boom("host"), KeyboardInterrupt()]) if f.ConsumeBool() else answer
    try:
        result = tool.execute(value, call_id=call_id, context=context)
    except KeyboardInterrupt:
        if isinstance(ANSWER[0], KeyboardInterrupt):
            return  # the host's own interrupt is not a tool failure
        raise
    well_formed(result)
    if not result["ok"] and tool.kind != "builtin":
        assert result["error"]["code"] in PACKAGE_ERROR_CODES, result


def limits_kwargs(gen: Generator) -> dict[str, Any]:
    f = gen.fdp
    kwargs: dict[str, Any] = {"max_operations": f.ConsumeIntInRange(0, BUDGET)}
    if f.ConsumeBool():
        kwargs["max_input_size"] = f.ConsumeIntInRange(0, 5000)
    if f.ConsumeIntInRange(0, 4) == 0:
        kwargs["max_call_depth"] = f.ConsumeIntInRange(0, 300)
    if f.ConsumeIntInRange(0, 4) == 0:
        kwargs["max_range_length"] = f.ConsumeIntInRange(0, 2_000_000)
    return kwargs


@atheris.instrument_func
def mutate(gen: Generator, value: Any) -> Any:
    """The corpus's own argument with one part replaced by a generated value."""
    f = gen.fdp
    if f.ConsumeIntInRange(0, 3) == 0:
        return gen.value()
    if isinstance(value, list) and value:
        copy = list(value)
        at = f.ConsumeIntInRange(0, len(copy) - 1)
        copy[at] = mutate(gen, copy[at])
        return copy
    if isinstance(value, dict) and value:
        copy_d = dict(value)
        key = f.PickValueInList(list(copy_d))
        copy_d[key] = mutate(gen, copy_d[key])
        return copy_d
    return value


@atheris.instrument_func
def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    gen = Generator(fdp)
    case = CASES[fdp.ConsumeIntInRange(0, len(CASES) - 1)]
    mode = fdp.ConsumeIntInRange(0, 7)
    call: Callable[[], Any]
    if mode >= 6:
        execute(gen)
        return
    if mode <= 1:
        name = case.function if fdp.ConsumeIntInRange(0, 7) else gen.str_()
        args: Any
        if mode == 0:
            args = [mutate(gen, a) for a in case.args]
        else:
            args = [gen.value() for _ in range(fdp.ConsumeIntInRange(0, 4))]
        shape = fdp.ConsumeIntInRange(0, 9)
        if shape == 1:
            args = tuple(args)
        elif shape == 2:
            args = List(args)
        elif shape == 3:
            args = fdp.PickValueInList([RaisingList(args), EndlessIter(args), LyingLen(args), None, {"a": 1}, "text", 3, iter(args)])
        kwargs = limits_kwargs(gen)
        call = lambda: ir.evaluate_function(case.program, name, args, **kwargs)  # noqa: E731
    elif mode == 2:
        function: Any = {"$type": "Function", "module": case.identity, "name": case.function}
        if fdp.ConsumeIntInRange(0, 3) == 0:
            function = mutate(gen, function) if fdp.ConsumeBool() else gen.value()
        named: Any = gen.fill({}, fdp.ConsumeIntInRange(0, 3), 0)
        shape = fdp.ConsumeIntInRange(0, 9)
        if shape == 1:
            named = Dict(named)
        elif shape == 2:
            named = RaisingDict(named)
        elif shape == 3:
            named = fdp.PickValueInList([None, [1], "text", {1: 2}, {EqStr("a"): 1}])
        kwargs = limits_kwargs(gen)
        call = lambda: ir.call_function(case.program, function, named, **kwargs)  # noqa: E731
    elif mode == 3:
        value = gen.value()
        limit = fdp.PickValueInList([None, fdp.ConsumeIntInRange(0, 1000), -1, 2**70, 1.5, True, "9"])
        call = lambda: ir.measure_input_size(value, limit)  # noqa: E731
    else:
        weird = {k: (gen.value() if fdp.ConsumeBool() else v) for k, v in limits_kwargs(gen).items()}

        def call() -> Any:
            limits = ir.Limits(**weird)
            if limits.max_operations is None or limits.max_operations > BUDGET:
                return None
            return ir.evaluate_function(case.program, case.function, case.args, limits=limits)

    try:
        result = call()
    except nx_agent.NxError as error:
        assert isinstance(error.code, str) and error.code.startswith("nx-"), error
        return
    if isinstance(result, ir.Evaluation):
        plain(result.value)
        plain(result.usage)


def main() -> None:
    CASES.extend(load_cases())
    TOOLS.extend(load_tools())
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
