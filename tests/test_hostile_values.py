"""Limits on what a host hands in (issue 7, Hardening): every API that takes host values, given
hostile ones, ends in a coded result or an :class:`nx_agent.NxError` — never a ``RecursionError``,
another exception type, a hang or a crash.

The APIs: ``ir.evaluate_function`` and ``ir.call_function`` (by name and by position, and the
argument container itself), ``ir.measure_input_size`` (with and without a limit), a tool's
``execute`` and ``aexecute`` (input, a member of the input, the context, a member of the context;
a ``function`` tool and an ``http`` tool), ``schema.validate_input``, ``build_http_request`` (its
arguments), ``normalize_agent`` (the value) and ``definition_text``. The values: 10^5 levels of
lists and of dicts, a self-containing list and dict, a string of 10^7 characters, 10^5000, NaN and
±inf, lone surrogates (as a value and as a key), dict and list subclasses whose methods raise or
never end, keys whose ``__eq__``/``__hash__`` misbehave, an object equal to everything, bytes,
sets and non-string keys.

Where a limit fixes the answer, the code is checked too: the input size limit
(``nx-ir-resource-limit`` with ``maxInputSize``), value nesting past 256 levels (refused at the
boundary), the tool's input cap (``invalid-input``) and the context cap (``resource-limit``).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import nx_agent
import nx_agent.schema
from agent_programs import execute_definition, link_execute_program
from hostile import Boom, RaisingDict, RaisingList
from nx_agent import NxError, ir
from nx_agent.agent.results import PACKAGE_ERROR_CODES

DEPTH = 10**5

HELD_MODULE = """module main.nx fingerprint 1
entrypoints functions [held same] components []

function held(o: object): object =
  o

function same(a: object, b: object): boolean =
  (a eq b)
"""


def _forever() -> Iterator[Any]:
    while True:
        yield "k"


class EndlessDict(dict):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        return _forever()

    def __len__(self) -> int:
        return 2**62

    def keys(self) -> Any:
        return _forever()

    def items(self) -> Any:
        return ((k, k) for k in _forever())

    def values(self) -> Any:
        return _forever()


class EndlessList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        return _forever()

    def __len__(self) -> int:
        return 2**62

    def __getitem__(self, index: Any) -> Any:
        return "k"


class EqRaises(str):
    """A string key whose comparison raises (its hash is the string's)."""

    def __eq__(self, other: object) -> bool:
        raise Boom("__eq__")

    def __ne__(self, other: object) -> bool:
        raise Boom("__ne__")

    def __hash__(self) -> int:
        return str.__hash__(self)


class HashLater:
    """A key hashable once (to go into the dict) and raising after."""

    def __init__(self) -> None:
        self.hashed = False

    def __hash__(self) -> int:
        if self.hashed:
            raise Boom("__hash__")
        self.hashed = True
        return 7

    def __eq__(self, other: object) -> bool:
        raise Boom("__eq__")


class EqualsEverything:
    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("teamSize")

    def __str__(self) -> str:
        raise Boom("__str__")

    def __repr__(self) -> str:
        raise Boom("__repr__")


def _deep_list() -> Any:
    value: Any = []
    for _ in range(DEPTH):
        value = [value]
    return value


def _deep_dict() -> Any:
    value: Any = {}
    for _ in range(DEPTH):
        value = {"a": value}
    return value


def _deep_mixed() -> Any:
    value: Any = 1
    for level in range(DEPTH):
        value = [value] if level % 2 else {"$type": "Inner", "a": value}
    return value


def _cyclic_list() -> Any:
    value: list[Any] = [1]
    value.append(value)
    return value


def _cyclic_dict() -> Any:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def _shared() -> Any:
    # 2^40 leaves by sharing: 40 levels of one list twice over.
    value: Any = ["x"]
    for _ in range(40):
        value = [value, value]
    return value


#: name → a factory of the hostile value (made fresh for each case).
VALUES: dict[str, Callable[[], Any]] = {
    "deep list": _deep_list,
    "deep dict": _deep_dict,
    "deep mixed": _deep_mixed,
    "cyclic list": _cyclic_list,
    "cyclic dict": _cyclic_dict,
    "shared 2^40": _shared,
    "huge string": lambda: "x" * 10**7,
    "huge int": lambda: 10**5000,
    "negative huge int": lambda: -(10**5000),
    "nan": lambda: math.nan,
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "lone surrogate": lambda: "a\ud800b",
    "lone surrogate key": lambda: {"\udc00": 1},
    "raising dict": lambda: RaisingDict(teamSize=5, a=1),
    "endless dict": lambda: EndlessDict(teamSize=5),
    "raising list": lambda: RaisingList([1, 2]),
    "endless list": lambda: EndlessList([1]),
    "key eq raises": lambda: {EqRaises("teamSize"): 5, EqRaises("$type"): "ChatToolContext"},
    "key hash raises later": lambda: {HashLater(): 1},
    "equals everything": lambda: EqualsEverything(),
    "key equals everything": lambda: {EqualsEverything(): 5},
    "bytes": lambda: b"teamSize",
    "set": lambda: {1, 2},
    "frozenset": lambda: frozenset({"a"}),
    "int keys": lambda: {1: 2},
    "object": lambda: object(),
}


# ---- the APIs ---------------------------------------------------------------------------------

HELD = {"$type": "Function", "module": "main.nx", "name": "held"}
BUDGET = 10**6


def _held_program() -> ir.Program:
    module = ir.prepare_module(ir.assemble(HELD_MODULE))
    return ir.link_program(module, {"main.nx": module})


HELD_PROGRAM = _held_program()
EXECUTE_PROGRAM = link_execute_program()
DEFINITION = json.loads(json.dumps(execute_definition()))
TOOLS: dict[str, Any] = {
    tool.name: tool
    for tool in nx_agent.create_agent_tools(
        DEFINITION, EXECUTE_PROGRAM, request=lambda call: {"status": 200, "body": None},
        executors={"builtin": lambda tool, value, call: "found"},
    )
}
LOOKUP_ORDER = next(tool for tool in DEFINITION["tools"] if tool["name"] == "lookup_order")
CHAT = {"$type": "ChatToolContext", "conversationId": "conv_9"}
FIND_PLANS_SCHEMA = TOOLS["find_plans"].input_schema


def _arguments(path_value: Any) -> dict[str, Any]:
    return {
        "$type": "HttpArguments",
        "pathParams": [{"$type": "HttpParam", "name": "orderId", "value": path_value}],
        "query": [],
    }


def _agent(tools: Any) -> dict[str, Any]:
    return {"$type": "Agent", "name": "support", "model": "balanced", "instructions": "Help.", "tools": tools}


class _NoSchemas:
    """A schema source for normalize_agent that is never reached with a good answer."""

    def function_schema(self, ref: Any, *, host_supplied_types: Any = ()) -> dict[str, Any]:
        return {"inputSchema": {"type": "object"}}


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


#: name → the call of the API with the hostile value ``v``.
APIS: dict[str, Callable[[Any], Any]] = {
    "evaluate_function arg": lambda v: ir.evaluate_function(HELD_PROGRAM, "held", [v], max_operations=BUDGET),
    "evaluate_function eq": lambda v: ir.evaluate_function(HELD_PROGRAM, "same", [v, v], max_operations=BUDGET),
    "evaluate_function args": lambda v: ir.evaluate_function(HELD_PROGRAM, "held", v, max_operations=BUDGET),
    "evaluate_function limited": lambda v: ir.evaluate_function(
        HELD_PROGRAM, "held", [v], max_operations=BUDGET, max_input_size=1_000
    ),
    "call_function by name": lambda v: ir.call_function(HELD_PROGRAM, HELD, {"o": v}, max_operations=BUDGET),
    "call_function by position": lambda v: ir.call_function(HELD_PROGRAM, HELD, [v], max_operations=BUDGET),
    "call_function args": lambda v: ir.call_function(HELD_PROGRAM, HELD, v, max_operations=BUDGET),
    "call_function function": lambda v: ir.call_function(HELD_PROGRAM, v, {"o": 1}, max_operations=BUDGET),
    "measure_input_size": lambda v: ir.measure_input_size(v),
    "measure_input_size limit": lambda v: ir.measure_input_size(v, limit=1_000),
    "execute input": lambda v: TOOLS["find_plans"].execute(v, call_id="t1"),
    "execute member": lambda v: TOOLS["find_plans"].execute({"teamSize": v}, call_id="t1"),
    "execute context": lambda v: TOOLS["who_am_i"].execute({}, call_id="t1", context=v),
    "execute context member": lambda v: TOOLS["who_am_i"].execute({}, call_id="t1", context={**CHAT, "conversationId": v}),
    "execute context input": lambda v: TOOLS["who_am_i"].execute(v, call_id="t1", context=CHAT),
    "execute http member": lambda v: TOOLS["lookup_order"].execute({"orderId": v}, call_id="t1"),
    "aexecute input": lambda v: _run(TOOLS["find_plans"].aexecute(v, call_id="t1")),
    "aexecute member": lambda v: _run(TOOLS["find_plans"].aexecute({"teamSize": v}, call_id="t1")),
    "aexecute context": lambda v: _run(TOOLS["who_am_i"].aexecute({}, call_id="t1", context=v)),
    "aexecute http member": lambda v: _run(TOOLS["lookup_order"].aexecute({"orderId": v}, call_id="t1")),
    "validate_input": lambda v: nx_agent.schema.validate_input(FIND_PLANS_SCHEMA, v),
    "validate_input member": lambda v: nx_agent.schema.validate_input(FIND_PLANS_SCHEMA, {"teamSize": v}),
    "build_http_request": lambda v: nx_agent.build_http_request(LOOKUP_ORDER, v),
    "build_http_request path value": lambda v: nx_agent.build_http_request(LOOKUP_ORDER, _arguments(v)),
    "build_http_request body": lambda v: nx_agent.build_http_request(LOOKUP_ORDER, {**_arguments("A1"), "body": v}),
    "normalize_agent": lambda v: nx_agent.normalize_agent(v, schemas=_NoSchemas()),
    "normalize_agent tools": lambda v: nx_agent.normalize_agent(_agent(v), schemas=_NoSchemas()),
    "normalize_agent instructions": lambda v: nx_agent.normalize_agent(
        {**_agent([]), "instructions": v}, schemas=_NoSchemas()
    ),
    "definition_text": lambda v: nx_agent.definition_text(v),
    "definition_text member": lambda v: nx_agent.definition_text({"tools": [v]}),
}

RESULT_APIS = {name for name in APIS if "execute" in name}
CODES = set(PACKAGE_ERROR_CODES)


def outcome(api: str, value: Any) -> str:
    """What the call came to: ``returned``, ``result <code>`` or ``NxError <code>``. Anything else raises."""
    try:
        answer = APIS[api](value)
    except NxError as error:
        assert api not in RESULT_APIS, f"execute raised {type(error).__name__}"
        code = getattr(error, "code", None)
        assert isinstance(code, str) and code, f"{type(error).__name__} without a code"
        return f"NxError {code}"
    if api in RESULT_APIS:
        assert type(answer) is dict and answer.get("ok") in (True, False)
        if answer["ok"]:
            return "result ok"
        code = answer["error"]["code"]
        assert code in CODES, code
        return f"result {code}"
    return "returned"


#: With no input limit a value is read as a tree (ir-format §6.2: the time is bounded only by
#: ``maxInputSize``), and the Python APIs write it out whole, as ``json.dumps`` would: a value shared
#: 2^40 times over is a hostile value only for the APIs that have a limit.
LIMITED_APIS = {"evaluate_function limited", "measure_input_size limit"} | RESULT_APIS
CASES = [(api, value) for api in APIS for value in VALUES if value != "shared 2^40" or api in LIMITED_APIS]


@pytest.mark.parametrize(("api", "value"), CASES)
def test_a_hostile_value_ends_in_a_coded_result_or_an_nx_error(api: str, value: str) -> None:
    outcome(api, VALUES[value]())


# ---- where a limit fixes the answer ------------------------------------------------------------

DEEP = ["deep list", "deep dict", "deep mixed", "cyclic list", "cyclic dict"]


@pytest.mark.parametrize("value", DEEP)
@pytest.mark.parametrize("api", ["evaluate_function arg", "call_function by name", "call_function by position"])
def test_nesting_past_256_levels_is_refused_by_the_runtime(api: str, value: str) -> None:
    assert outcome(api, VALUES[value]()) in {"NxError nx-ir-resource-limit", "NxError nx-ir-boundary-type"}


@pytest.mark.parametrize("value", ["huge string", "shared 2^40", "deep list"])
def test_the_input_size_limit_holds(value: str) -> None:
    with pytest.raises(ir.NxIrError) as refused:
        APIS["evaluate_function limited"](VALUES[value]())
    assert refused.value.code == "nx-ir-resource-limit"
    assert refused.value.diagnostics[0].limit == {"name": "maxInputSize", "value": 1_000}
    assert ir.measure_input_size(VALUES[value](), limit=1_000) > 1_000


@pytest.mark.parametrize("value", ["huge string", "shared 2^40", "deep list", "deep dict"])
def test_a_tool_refuses_what_its_caps_refuse(value: str) -> None:
    # agent-package §5.3: over maxArgumentsSize is invalid-input, over maxContextSize resource-limit.
    assert outcome("execute member", VALUES[value]()) == "result invalid-input"
    assert outcome("execute context member", VALUES[value]()) == "result resource-limit"


# ---- regressions: what the matrix found --------------------------------------------------------


@pytest.mark.parametrize("value", ["deep dict", "cyclic list", "huge int", "bytes", "key hash raises later"])
def test_definition_text_refuses_what_is_not_a_json_tree_with_an_nx_error(value: str) -> None:
    # Was a RecursionError, a ValueError or a TypeError of our own.
    with pytest.raises(NxError) as refused:
        nx_agent.definition_text({"tools": [VALUES[value]()]})
    assert isinstance(refused.value, TypeError)  # what it raised for a non-JSON value before
    assert refused.value.code == "nx-agent-host-value"


def test_definition_text_reads_subclasses_from_their_storage() -> None:
    # Was the subclass's own exception, or a hang for an endless one.
    assert nx_agent.definition_text(RaisingDict(a=RaisingList([1, "x"]))) == '{"a":[1,"x"]}'
    assert nx_agent.definition_text(EndlessDict(a=EndlessList(["x"]))) == '{"a":["x"]}'
    assert nx_agent.definition_text({EqRaises("b"): 1, "a": 2}) == '{"b":1,"a":2}'


@pytest.mark.parametrize("value", ["deep list", "cyclic dict", "bytes", "set", "int keys", "lone surrogate"])
def test_validate_input_refuses_what_is_not_json_with_an_nx_error(value: str) -> None:
    # Was jsonschema-rs's ValueError or a UnicodeEncodeError.
    with pytest.raises(NxError) as refused:
        nx_agent.schema.validate_input(FIND_PLANS_SCHEMA, {"teamSize": VALUES[value]()})
    assert refused.value.code == "nx-agent-host-value"


def test_validate_input_reads_a_str_key_subclass_as_its_text() -> None:
    # jsonschema-rs refused a key of a str subclass; read as plain text it validates.
    assert nx_agent.schema.validate_input(FIND_PLANS_SCHEMA, {EqRaises("teamSize"): 5}) == []
    assert nx_agent.schema.validate_input(FIND_PLANS_SCHEMA, {EqRaises("teamSize"): "5"}) != []


def test_build_http_request_reads_the_arguments_from_storage() -> None:
    # Was the dict subclass's own __contains__ raising out of a function that never raises.
    plain = nx_agent.build_http_request(LOOKUP_ORDER, _arguments("A 1"))
    assert plain.ok is True
    hostile = RaisingDict(_arguments("A 1"))
    hostile["pathParams"] = RaisingList([RaisingDict(name=EqRaises("orderId"), value="A 1")])
    built = nx_agent.build_http_request(LOOKUP_ORDER, hostile)
    assert built.ok is True and built.request == plain.request
    endless = nx_agent.build_http_request(LOOKUP_ORDER, {**_arguments("A 1"), "query": EndlessList([])})
    assert endless.ok is True and endless.request == plain.request


@pytest.mark.parametrize("value", ["deep dict", "cyclic dict", "huge int", "raising dict", "key eq raises", "equals everything"])
def test_normalize_agent_answers_a_diagnostic_for_a_value_it_cannot_read(value: str) -> None:
    # Was a RecursionError, a ValueError, or the value's own methods raising.
    result = nx_agent.normalize_agent(_agent([VALUES[value]()]), schemas=_NoSchemas())
    assert result.ok is False and result.definition is None
    assert {d.code for d in result.diagnostics} <= {"nx-agent-not-an-agent", "nx-agent-unknown-tool-type"}
