"""Pickling and copying of everything a host holds (issue 17, item 1): each object pickled,
unpickled and used for a call whose answer equals the original's; damaged state refused with a
code; a host function that cannot travel named in a clear error."""

from __future__ import annotations

import copy
import pickle
import struct
from typing import Any

import pytest

import travel_support as support
from nx_agent import NxError, examples, ir, load_agent
from nx_agent.agent import NxAgentError, NxAgentToolError
from nx_agent.agent.travel import HostFunctionNotPicklable
from nx_agent.schema import ProgramSchemaSource, StoredSchemaSource, SchemaError

FIND_PLANS = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}
PROTOCOLS = range(2, pickle.HIGHEST_PROTOCOL + 1)


def round_trip(value: Any, protocol: int = pickle.HIGHEST_PROTOCOL) -> Any:
    return pickle.loads(pickle.dumps(value, protocol))


def call(program: ir.Program, team_size: int = 5, **limits: Any) -> tuple[Any, Any]:
    evaluation = ir.call_function(program, FIND_PLANS, {"teamSize": team_size}, max_operations=10_000, **limits)
    return evaluation.value, evaluation.usage


# --- Native objects --------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_program_round_trip_answers_as_the_original(protocol: int) -> None:
    program = examples.link_example()
    back = round_trip(program, protocol)
    assert back is not program
    assert [m.identity for m in back.modules] == [m.identity for m in program.modules]
    assert [m.to_bytes() for m in back.modules] == [m.to_bytes() for m in program.modules]
    for team_size in (1, 5, 11, 60):
        assert call(back, team_size) == call(program, team_size)


def test_prepared_module_round_trip_links_and_answers_as_the_original() -> None:
    main, catalog = examples.prepare("plans/main.nx"), examples.prepare("plans/catalog.nx")
    main2, catalog2 = round_trip(main), round_trip(catalog)
    assert (main2.identity, main2.version, main2.fingerprint, main2.schema) == (
        main.identity, main.version, main.fingerprint, main.schema,
    )
    assert main2.to_bytes() == main.to_bytes() and main2.explain() == main.explain()
    relinked = ir.link_program(main2, {"plans/catalog.nx": catalog2})
    assert call(relinked) == call(ir.link_program(main, {"plans/catalog.nx": catalog}))


@pytest.mark.parametrize("schema", [5, 6])
def test_a_program_using_the_builtin_prelude_travels_without_it(schema: int) -> None:
    fingerprint = {5: 16429037828798365428, 6: 3805895034114390176}[schema]
    text = f"""module ranges.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint {fingerprint}
requires ranges-v1
entrypoints functions [squares] components []

function squares(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)
"""
    program = ir.prepare_program(ir.assemble(text, schema=schema))
    assert [m.identity for m in program.modules] == ["ranges.nx", "@nx/prelude.nx"]
    back = round_trip(program)
    assert back.entry.schema == schema and back.modules[1].schema == schema
    assert ir.evaluate_function(back, "squares", [4], max_operations=100).value == [0, 1, 4, 9]
    # The prelude is recorded as the built-in one, not carried as its 604 bytes.
    assert len(pickle.dumps(program)) < len(pickle.dumps(program.entry)) + 100
    # A prelude the host supplied itself (a copy of its bytes) is carried as any image.
    supplied = ir.prepare_module(ir.builtin_prelude(schema=schema).to_bytes())
    hosted = ir.link_program(program.entry, {"@nx/prelude.nx": supplied})
    assert len(pickle.dumps(hosted)) > len(pickle.dumps(program)) + 600
    assert ir.evaluate_function(round_trip(hosted), "squares", [3], max_operations=100).value == [0, 1, 4]


def test_allow_version_mismatch_travels_with_the_program() -> None:
    main = examples.prepare("plans/main.nx")
    catalog_text = examples.text("plans/catalog.nx")
    catalog = ir.prepare_module(ir.assemble(catalog_text, version="2"))
    with pytest.raises(ir.NxIrError) as refused:
        ir.link_program(main, {"plans/catalog.nx": catalog})
    assert refused.value.code == "nx-ir-link-version"
    program = ir.link_program(main, {"plans/catalog.nx": catalog}, allow_version_mismatch=True)
    back = round_trip(program)
    assert back.allow_version_mismatch is True and program.allow_version_mismatch is True
    assert call(back) == call(program)


def test_limits_round_trip_limits_a_call_as_the_original() -> None:
    program = examples.link_example()
    for limits in (ir.Limits(), ir.Limits(max_operations=30, max_input_size=40, max_call_depth=7, max_range_length=9)):
        back = round_trip(limits)
        assert repr(back) == repr(limits)
        outcomes = []
        for held in (limits, back):
            try:
                evaluation = ir.call_function(program, FIND_PLANS, {"teamSize": 5}, limits=held)
                outcomes.append((evaluation.value, evaluation.usage))
            except ir.NxIrError as error:
                outcomes.append((error.code, str(error)))
        assert outcomes[0] == outcomes[1]


def test_evaluation_round_trip() -> None:
    evaluation = ir.evaluate_function(examples.link_example(), "findPlans", [5], max_operations=1000, max_input_size=50)
    back = round_trip(evaluation)
    assert (back.value, back.usage, back.operations, back.input_size) == (
        evaluation.value, evaluation.usage, evaluation.operations, evaluation.input_size,
    )


def test_nx_ir_error_round_trip_keeps_its_code_and_diagnostics() -> None:
    with pytest.raises(ir.NxIrError) as raised:
        ir.evaluate_function(examples.link_example(), "findPlans", [5], max_operations=3)
    error = raised.value
    back = round_trip(error)
    assert type(back) is ir.NxIrError and isinstance(back, NxError)
    assert (str(back), back.code) == (str(error), "nx-ir-resource-limit")
    assert [d.to_dict() for d in back.diagnostics] == [d.to_dict() for d in error.diagnostics]
    assert back.diagnostics == error.diagnostics
    assert back.diagnostics[0].limit == {"name": "maxOperations", "value": 3}


def test_diagnostic_and_module_link_round_trip() -> None:
    with pytest.raises(ir.NxIrError) as raised:
        ir.prepare_module(b"NXIR" + bytes(40))
    for diagnostic in raised.value.diagnostics:
        assert round_trip(diagnostic) == diagnostic
    links = examples.prepare("plans/main.nx").links
    assert round_trip(links) == links


def test_copies_of_immutable_native_objects_are_the_objects() -> None:
    program = examples.link_example()
    for value in (program, program.entry, ir.Limits(max_operations=5), program.entry.links[0]):
        assert copy.copy(value) is value and copy.deepcopy(value) is value
    evaluation = ir.evaluate_function(program, "findPlans", [5], max_operations=1000)
    deep = copy.deepcopy(evaluation)
    assert deep.value == evaluation.value and deep.value is not evaluation.value
    assert deep.usage == evaluation.usage


# --- Damaged state ---------------------------------------------------------------------------


def _fnv1a64(data: bytes) -> int:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def _state(value: Any) -> tuple[Any, bytes]:
    restore, (state,) = value.__reduce__()
    return restore, state


def test_every_damaged_byte_of_a_program_state_is_refused_with_a_code() -> None:
    restore, state = _state(examples.link_example())
    refused = 0
    for at in range(len(state)):
        damaged = bytearray(state)
        damaged[at] ^= 0x5A
        with pytest.raises(ir.NxIrError) as error:
            restore(bytes(damaged))
        assert error.value.code == "nx-ir-pickle", at
        refused += 1
    for cut in range(0, len(state), 7):
        with pytest.raises(ir.NxIrError) as error:
            restore(state[:cut])
        assert error.value.code == "nx-ir-pickle"
    assert refused == len(state) > 1000


def test_a_state_whose_checksum_holds_is_still_checked_as_an_untrusted_image() -> None:
    restore, state = _state(examples.prepare("plans/main.nx"))
    payload = bytearray(state[20:])
    image_at = state.index(b"NXIR") - 20
    payload[image_at] = ord("X")  # the image's magic: the reader's own refusal
    forged = state[:12] + struct.pack("<Q", _fnv1a64(bytes(payload))) + bytes(payload)
    with pytest.raises(ir.NxIrError) as error:
        restore(forged)
    assert error.value.code == "nx-ir-format"


def test_damaged_pickles_are_refused_and_never_crash() -> None:
    """Every byte of a whole pickle changed: refused by pickle itself (its framing) or with a coded
    NxIrError (the state), and never a crash or another kind of exception from our code."""
    data = pickle.dumps(examples.link_example())
    outcomes: dict[str, int] = {}
    for at in range(len(data)):
        damaged = bytearray(data)
        damaged[at] ^= 0xFF
        try:
            pickle.loads(bytes(damaged))
            outcome = "loaded"
        except ir.NxIrError as error:
            outcome = error.code
        except (pickle.UnpicklingError, EOFError, ValueError, KeyError, AttributeError, ImportError,
                IndexError, TypeError, UnicodeDecodeError, OverflowError, MemoryError, struct.error) as error:
            outcome = f"pickle: {type(error).__name__}"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("nx-ir-pickle", 0) > 1000, outcomes
    assert "loaded" not in outcomes or outcomes["loaded"] <= 2, outcomes  # the trailing STOP/frame bytes


@pytest.mark.parametrize(
    ("restore", "args", "code"),
    [
        ("_restore_program", (42,), "nx-ir-pickle"),
        ("_restore_program", (b"",), "nx-ir-pickle"),
        ("_restore_module", ("text",), "nx-ir-pickle"),
        ("_restore_limits", (-1, None, 100, 10), "nx-ir-options"),
        ("_restore_limits", (1, None, True, 10), "nx-ir-options"),
        ("_restore_evaluation", ([], "many", None), "nx-ir-pickle"),
        ("_restore_diagnostic", ("fatal", "c", "m", None, None, None, None), "nx-ir-pickle"),
        ("_restore_diagnostic", ("error", 1, "m", None, None, None, None), "nx-ir-pickle"),
        ("_restore_module_link", ("a", "1", -5), "nx-ir-pickle"),
    ],
)
def test_state_of_the_wrong_kind_is_refused_with_a_code(restore: str, args: tuple[Any, ...], code: str) -> None:
    from nx_agent import _native

    with pytest.raises(ir.NxIrError) as error:
        getattr(_native, restore)(*args)
    assert error.value.code == code


def test_a_module_state_is_not_a_program_state() -> None:
    restore_program, _ = _state(examples.link_example())
    _, module_state = _state(examples.prepare("plans/main.nx"))
    with pytest.raises(ir.NxIrError, match="holds a prepared module, not a program") as error:
        restore_program(module_state)
    assert error.value.code == "nx-ir-pickle"


# --- The agent layer -------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_loaded_agent_round_trip_answers_every_call_as_the_original(protocol: int) -> None:
    agent = support.agent()
    back = round_trip(agent, protocol)
    assert back.definition == agent.definition and [t.name for t in back] == [t.name for t in agent]
    assert support.run_calls(back) == support.run_calls(agent)


def test_each_tool_round_trip_answers_as_the_original() -> None:
    agent = support.agent(max_operations=500, max_arguments_size=100, runtime={"max_call_depth": 20})
    expected = support.run_calls(agent)
    for tool in agent:
        back = round_trip(tool)
        assert type(back) is type(tool) and dict(back) == dict(tool)
    tools = {tool.name: round_trip(tool) for tool in agent}
    assert support.run_calls(tools) == expected


def test_tool_limits_and_argument_checks_travel() -> None:
    agent = support.agent(max_operations=10, validate_arguments=True)
    back = round_trip(agent)
    for tools in (agent, back):
        assert tools["find_plans"].checks_input
        over = tools["find_plans"].execute({"teamSize": 5}, call_id="c")
        assert over["error"]["code"] == "resource-limit"
        refused = tools["find_plans"].execute({"teamSize": "five"}, call_id="c")
        assert refused["error"]["code"] == "invalid-input" and "usage" not in refused
    assert round_trip(agent["find_plans"]).execute({"teamSize": 5}, call_id="c") == agent["find_plans"].execute(
        {"teamSize": 5}, call_id="c"
    )


def test_compiled_agent_round_trip() -> None:
    compiled = support.compiled()
    back = round_trip(compiled)
    assert (back.definition, back.definition_text, back.images, back.warnings) == (
        compiled.definition, compiled.definition_text, compiled.images, compiled.warnings,
    )
    plans = {"$type": "Function", "module": "main.nx", "name": "findPlans"}
    assert ir.call_function(back.program, plans, {"teamSize": 5}).value == ir.call_function(
        compiled.program, plans, {"teamSize": 5}
    ).value
    loaded = load_agent(back.definition_text, back.images, request=support.shop)
    assert loaded["find_plans"].execute({"teamSize": 5}, call_id="c")["ok"] is True


def test_schema_sources_round_trip_answer_as_the_originals() -> None:
    compiled = support.compiled()
    source = ProgramSchemaSource(compiled.program, examples.support_descriptions())
    ref = {"module": "main.nx", "name": "findPlans"}
    answer = source.function_schema(ref)
    back = round_trip(source)
    assert back.function_schema(ref) == answer
    stored = StoredSchemaSource([{"module": "main.nx", **answer}])
    assert round_trip(stored).function_schema(ref) == stored.function_schema(ref)
    assert copy.deepcopy(source).function_schema(ref) == answer


def test_agent_errors_round_trip() -> None:
    with pytest.raises(NxAgentError) as raised:
        load_agent(support.definition(), support.compiled().images)  # no request function, no executor
    error = raised.value
    back = round_trip(error)
    assert (type(back), str(back), back.code, back.diagnostics) == (type(error), str(error), error.code, error.diagnostics)
    tool_error = NxAgentToolError("quota", "Over quota.", diagnostics=[{"code": "x"}], limit={"name": "n", "value": 1})
    back_tool = round_trip(tool_error)
    assert (back_tool.code, str(back_tool), back_tool.diagnostics, back_tool.limit) == ("quota", "Over quota.", ({"code": "x"},), {"name": "n", "value": 1})
    with pytest.raises(SchemaError) as schema_error:
        ProgramSchemaSource(support.compiled().program).function_schema({"module": "main.nx", "name": "nothing"})
    back_schema = round_trip(schema_error.value)
    assert (back_schema.code, back_schema.diagnostics) == (schema_error.value.code, schema_error.value.diagnostics)


def test_a_lambda_request_function_cannot_travel_and_the_error_says_what_to_do() -> None:
    agent = load_agent(support.definition(), support.compiled().images, request=lambda call: {"status": 200},
                       executors={"crm": support.crm})
    with pytest.raises(HostFunctionNotPicklable) as raised:
        pickle.dumps(agent)
    message = str(raised.value)
    assert raised.value.code == "nx-agent-host-function" and isinstance(raised.value, pickle.PicklingError)
    assert "Tool 'lookup_order'" in message and "request function" in message and "<lambda>" in message
    assert "load_agent(**stored, request=..., executors=...)" in message
    with pytest.raises(HostFunctionNotPicklable, match="executor for the kind 'crm'"):
        pickle.dumps(load_agent(support.definition(), support.compiled().images, request=support.shop,
                                executors={"crm": lambda tool, value, call: None})["search_crm"])
    # The way round: the stored arguments travel; the functions are given where they arrive.
    stored = round_trip(agent.stored())
    again = load_agent(**stored, request=support.shop, executors={"crm": support.crm})
    assert support.run_calls(again) == support.run_calls(support.agent())
    # A function tool needs no host function, so it travels alone.
    assert round_trip(agent["find_plans"]).execute({"teamSize": 5}, call_id="c")["ok"] is True


def test_stored_keeps_the_options() -> None:
    agent = support.agent(max_operations=10, max_context_size=7, runtime={"max_range_length": 3}, validate_arguments=True)
    stored = agent.stored()
    assert (stored["max_operations"], stored["max_context_size"], stored["runtime"], stored["validate_arguments"]) == (
        10, 7, {"max_range_length": 3}, True,
    )
    again = load_agent(**stored, request=support.shop, executors={"crm": support.crm})
    assert support.run_calls(again) == support.run_calls(agent)


def test_a_tampered_agent_pickle_is_checked_as_a_stored_definition() -> None:
    agent = support.agent()
    restore, (definition, program, options, request, executors) = agent.__reduce_ex__(4)
    tampered = copy.deepcopy(definition)
    tampered["tools"][1]["config"]["function"]["name"] = "noSuchFunction"
    with pytest.raises(NxAgentError) as error:
        restore(tampered, program, options, request, executors)
    assert error.value.code == "nx-agent-unknown-function"  # agent-package §4


def test_copies_of_agents_and_tools_share_the_program_and_the_host_functions() -> None:
    request = lambda call: support.shop(call)  # noqa: E731 - a lambda: copying needs no pickling
    agent = load_agent(support.definition(), support.compiled().images, request=request, executors={"crm": support.crm})
    expected = support.run_calls(support.agent())
    for copied in (copy.copy(agent), copy.deepcopy(agent)):
        assert copied.program is agent.program
        assert support.run_calls(copied) == expected
    deep = copy.deepcopy(agent)
    assert deep.definition == agent.definition and deep.definition is not agent.definition
    assert deep["lookup_order"].definition is not agent["lookup_order"].definition
    tool = copy.deepcopy(agent["lookup_order"])
    assert tool._request is request and tool.execute({"orderId": "A"}, call_id="c")["ok"] is True
    assert copy.copy(agent["find_plans"]).execute({"teamSize": 5}, call_id="c") == expected[0]
