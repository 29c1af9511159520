"""Schemas of images from strangers: deriving a tool's JSON Schema walks the types an image
declares, and an image can declare them in any number and shape. The walk must finish with the
compiler's answer, or refuse with a code, in work and memory in proportion to the image."""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from typing import Any

import pytest

from nx_agent.agent import NxAgentError, compile_agent
from nx_agent.agent.compile import DEFINITION_BASE_CHARS, DEFINITION_CHARS_PER_IMAGE_BYTE
from nx_agent.json_tree import json_chars_within
from nx_agent.schema import DIALECT, INEXPRESSIBLE_TYPE, SCHEMA_TOO_LARGE, function_schema
from nx_agent.schema.document import MENTION_CHARS, SCHEMA_BASE_CHARS, SCHEMA_CHARS_PER_IMAGE_BYTE
from nx_agent.schema.sources import ProgramSchemaSource

from agent_programs import AGENT, agent_images, one_tool_agent
from schema_programs import main, program
from test_dag_images import peak

#: Far past Python's recursion limit (1,000 frames): a walk that recursed per record would fail.
CHAIN = 2_000


def python_steps(call: Callable[[], object]) -> int:
    """The bytecode instructions Python runs for ``call()``, in every frame it enters: a
    deterministic count of the work done in Python (work inside C functions is not seen)."""
    count = 0

    def each(frame: Any, event: str, arg: object) -> Any:
        nonlocal count
        if event == "opcode":
            count += 1
        return each

    def enter(frame: Any, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        return each

    sys.settrace(enter)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def _chain(length: int) -> str:
    """``R0`` holds the union ``U0``, whose payload case holds the abstract ``A0``, which only
    ``R1`` extends, and so on: every kind of definition the walk enters, ``length`` times."""
    parts = []
    for i in range(length):
        parts.append(f"record A{i} abstract\n  tag: string?\n")
        parts.append(f"record R{i} extends A{i - 1}\n  tag: string?\n  next: U{i} required\n" if i else f"record R{i}\n  next: U{i} required\n")
        parts.append(f"union U{i}\n  case stop constant\n  case go\n    on: A{i} required\n")
    parts.append(f"record R{length} extends A{length - 1}\n  tag: string?\n")
    return "\n".join(parts) + "\nfunction take(first: R0): int =\n  1\n"


def test_a_chain_of_definitions_far_past_the_recursion_limit_gets_its_schema() -> None:
    answer = function_schema(program(main(_chain(CHAIN))), {"name": "take"})
    assert answer["diagnostics"] == []
    schema: dict[str, Any] = answer["inputSchema"]
    assert schema["properties"] == {"first": {"$ref": "#/$defs/R0"}}
    defs = schema["$defs"]
    # First-mention order: each record, its union, the union's payload case, then the next record.
    expected = [key for i in range(CHAIN) for key in (f"R{i}", f"U{i}", f"U{i}.go")] + [f"R{CHAIN}"]
    assert list(defs) == expected
    assert defs["U7"] == {"anyOf": [{"type": "string", "enum": ["stop"]}, {"$ref": "#/$defs/U7.go"}]}
    # The abstract `A7` has one shape, `R8`, which must then say what it is.
    assert defs["U7.go"]["properties"]["on"] == {"anyOf": [{"$ref": "#/$defs/R8"}]}
    assert defs["R8"]["properties"]["$type"] == {"const": "R8"}
    assert defs["R8"]["required"] == ["$type", "next"]


def test_an_agent_whose_tool_takes_such_a_chain_compiles() -> None:
    agent = compile_agent(one_tool_agent(_chain(CHAIN), "take"))
    (tool,) = agent.definition["tools"]
    assert tool["inputSchema"]["properties"]["first"] == {"$ref": "#/$defs/R0"}
    assert len(tool["inputSchema"]["$defs"]) == 3 * CHAIN + 1


def test_the_walk_over_a_chain_grows_in_proportion_to_it() -> None:
    # Each abstract record's shapes were looked for in every declaration of the program: twice the
    # chain took 3.7 times the steps (2,000 links took 4 s). They are now read in one pass.
    steps = []
    for length in (150, 300):
        linked = program(main(_chain(length)))
        steps.append(python_steps(lambda: function_schema(linked, {"name": "take"})))
    assert steps[1] < 2.3 * steps[0], steps


def _clashing(count: int) -> str:
    # Records whose names differ only in a character a `$defs` key cannot hold: each is keyed `A_`
    # and must take the next free `A__2`, `A__3`...
    records = "".join(f"record A{chr(0x4E00 + i)}\n  n: int required\n\n" for i in range(count))
    fields = "".join(f"  f{i}: A{chr(0x4E00 + i)} required\n" for i in range(count))
    return f"{records}record Many\n{fields}\nfunction take(m: Many): int =\n  1\n"


def test_clashing_definition_keys_are_numbered_in_proportion_to_their_number() -> None:
    answer = function_schema(program(main(_clashing(300))), {"name": "take"})
    keys = list(answer["inputSchema"]["$defs"])
    assert keys == ["Many", "A_"] + [f"A__{n}" for n in range(2, 301)]
    # Each clash looked for a free key from `_2` up: 2,000 records took 3.9 s.
    steps = []
    for count in (150, 300):
        linked = program(main(_clashing(count)))
        steps.append(python_steps(lambda: function_schema(linked, {"name": "take"})))
    assert steps[1] < 2.3 * steps[0], steps


LONG = 20_000


def _many_refs(count: int) -> str:
    # `count` fields typed by one record with a long name: each mention is a `$ref` naming it.
    name = "I" * LONG
    fields = "".join(f"  f{i}: {name} required\n" for i in range(count))
    return f"record {name}\n  n: int required\n\nrecord Many\n{fields}\nfunction take(m: Many): int =\n  1\n"


def _many_shapes(count: int) -> str:
    # `count` fields typed by an abstract record `count` records extend: each mention lists them all.
    shapes = "".join(f"record C{i} extends Shape\n  label: string?\n\n" for i in range(count))
    fields = "".join(f"  f{i}: Shape required\n" for i in range(count))
    return f"record Shape abstract\n  label: string?\n\n{shapes}record Many\n{fields}\nfunction take(m: Many): int =\n  1\n"


def test_a_schema_whose_text_would_dwarf_the_image_is_refused_with_a_code() -> None:
    for text, image_at_most in ((_many_refs(2_000), 80_000), (_many_shapes(2_000), 200_000)):
        linked = program(main(text))
        image = sum(module.size for module in linked.modules)
        assert image < image_at_most
        answer, used = peak(lambda: function_schema(linked, {"name": "take"}))
        # 2,000 refs of 20,000 characters are 40 MB of text; 2,000 lists of 2,000 shapes 80 MB.
        assert "inputSchema" not in answer
        (refused,) = answer["diagnostics"]
        assert refused["code"] == SCHEMA_TOO_LARGE
        limit = SCHEMA_BASE_CHARS + SCHEMA_CHARS_PER_IMAGE_BYTE * image
        assert f"more than {limit:,} characters" in refused["message"]
        # Every mention of a definition shares its `$ref` text and an abstract record's list of
        # shapes: the walk took 41 MB and 1.1 GB before.
        assert used < 64 * image, used
    # The output schema is made alone, and fits.
    assert answer["outputSchema"] == {"$schema": DIALECT, "type": "integer"}


def test_below_the_budget_every_mention_is_written_out_as_the_compiler_writes_it() -> None:
    answer = function_schema(program(main(_many_shapes(40))), {"name": "take"})
    assert answer["diagnostics"] == []
    schema = answer["inputSchema"]
    shapes = {"anyOf": [{"$ref": f"#/$defs/C{i}"} for i in range(40)]}
    assert schema["$defs"]["Many"]["properties"] == {f"f{i}": shapes for i in range(40)}
    assert list(schema["$defs"]) == ["Many"] + [f"C{i}" for i in range(40)]
    assert all(schema["$defs"][f"C{i}"]["required"] == ["$type"] for i in range(40))
    answer = function_schema(program(main(_many_refs(10))), {"name": "take"})
    properties = answer["inputSchema"]["$defs"]["Many"]["properties"]
    assert properties == {f"f{i}": {"$ref": "#/$defs/" + "I" * LONG} for i in range(10)}


def test_an_agent_whose_tool_schema_is_too_large_is_refused_with_a_code() -> None:
    images = one_tool_agent(_many_refs(2_000), "take")
    refused, used = peak(lambda: _refusal(images))
    assert [d.code for d in refused.diagnostics] == ["nx-agent-inexpressible-parameter"]
    assert "characters of JSON" in refused.diagnostics[0].message
    assert used < 64 * sum(len(image) for image in images.values()), used


def _refusal(images: dict[str, bytes]) -> NxAgentError:
    try:
        compile_agent(images)
    except NxAgentError as error:
        return error
    raise AssertionError("compiled")


def _markup_fields(count: int, field: str) -> str:
    # `count` records, each with a field named `field` holding markup (which has no JSON form), and
    # a chain through them: every one is reported, the last at a depth of `count`.
    records = "".join(
        f"record R{i}\n  {field}: Element required\n  next: R{i + 1} required\n\n" for i in range(count)
    )
    return f"{records}record R{count}\n  n: int required\n\nfunction take(first: R0): int =\n  1\n"


def test_each_report_quotes_long_names_and_deep_paths_bounded() -> None:
    field = "g" * LONG
    linked = program(main(_markup_fields(1_000, field)))
    answer, used = peak(lambda: function_schema(linked, {"name": "take"}))
    problems = answer["diagnostics"]
    assert len(problems) == 1_000 and {p["code"] for p in problems} == {INEXPRESSIBLE_TYPE}
    # Each message quoted the field's whole name and the whole path to it: 20 MB of names and
    # 2.5 MB of paths for a 120 kB image.
    assert all(len(p["message"]) < 2_000 for p in problems)
    assert used < 64 * sum(module.size for module in linked.modules), used
    last = problems[-1]["message"]
    assert last.startswith("`R999.gggg") and "characters left out" in last
    assert "(reached through `first.next.next" in last and "…(985 segments left out)…" in last
    # A short one reads as it always has.
    answer = function_schema(program(main(_markup_fields(2, "body"))), {"name": "take"})
    assert [p["message"] for p in answer["diagnostics"]] == [
        "`R0.body` is markup, `Element`, which has no JSON form (reached through `first.body`)",
        "`R1.body` is markup, `Element`, which has no JSON form (reached through `first.next.body`)",
    ]


def test_parameters_of_one_long_named_type_share_its_spelling() -> None:
    name = "I" * LONG
    params = ", ".join(f"p{i}: {name}*" for i in range(1_000))
    linked = program(main(f"record {name}\n  n: int required\n\nfunction take({params}): int =\n  1\n"))
    answer, used = peak(lambda: function_schema(linked, {"name": "take"}))
    parameters = answer["parameters"]
    assert [p["name"] for p in parameters] == [f"p{i}" for i in range(1_000)]
    assert parameters[0]["type"] == name + "*"
    assert all(p["type"] is parameters[0]["type"] for p in parameters)
    # A spelling each was 20 MB for a 40 kB image.
    assert used < 64 * sum(module.size for module in linked.modules), used


def _tools_of_one_function(tools: int) -> dict[str, bytes]:
    """An agent whose `tools` function tools all name `take`, whose record has 100 fields of
    1,000-character names: a 110 kB image whose one schema is 200 kB of JSON."""
    fields = "".join(f"  f{i}{'x' * 1_000}: string required\n" for i in range(100))
    declarations = f"""record Many
{fields}
function take(m: Many): int =
  1

function many(n: int): {AGENT}:Tool* =
  for i, at in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <{AGENT}:FunctionTool description="The tool." function=take name=("t" concat text<int>(i)) />
"""
    return agent_images(declarations, f"many({tools})", ["take", "many"], ranges=True)


def test_an_agent_whose_tools_repeat_one_large_schema_is_refused_at_its_budget() -> None:
    images = _tools_of_one_function(1_000)
    size = sum(len(image) for image in images.values())
    budget = DEFINITION_BASE_CHARS + DEFINITION_CHARS_PER_IMAGE_BYTE * size
    refused, used = peak(lambda: _refusal(images))
    (too_large,) = refused.diagnostics
    assert too_large.code == "nx-agent-definition-too-large"
    # Each tool holds the 200 kB schema: the budget is reached about 28 tools in, not 1,000.
    at = int(too_large.path.removeprefix("tools[").removesuffix("]"))
    assert budget // 220_000 < at <= budget // 200_000 + 1, (at, budget)
    # 1,000 copies were 200 MB of definition text.
    assert used < 64 * size, used
    # The same agent with ten tools compiles, each holding the schema.
    agent = compile_agent(_tools_of_one_function(10))
    tools = agent.definition["tools"]
    assert [tool["name"] for tool in tools] == [f"t{i}" for i in range(10)]
    assert all(tool["inputSchema"] == tools[0]["inputSchema"] for tool in tools)
    assert len(tools[0]["inputSchema"]["$defs"]["Many"]["properties"]) == 100


def _functions_of_one_record(functions: int, fields: int) -> str:
    """``functions`` functions each taking the record ``Many`` of ``fields`` fields."""
    many = "".join(f"  f{i}: string required\n" for i in range(fields))
    takes = "".join(f"function take{k}(m: Many): int =\n  1\n\n" for k in range(functions))
    return f"record Many\n{many}\n{takes}"


def test_a_source_with_a_budget_makes_schemas_while_they_fit_together() -> None:
    linked = program(main(_functions_of_one_record(5, 100)))
    alone = ProgramSchemaSource(linked).function_schema({"name": "take0"})
    # A function's work: its schemas' text, and a mention for `m`, each field and the result.
    each = sum(json_chars_within(alone[key], 1 << 30) or 0 for key in ("inputSchema", "outputSchema"))
    each += (1 + 100 + 1) * MENTION_CHARS
    # Room for two functions' schemas, not three.
    source = ProgramSchemaSource(linked, max_chars=2 * each + each // 2)
    made = [source.function_schema({"name": f"take{k}"}) for k in range(5)]
    assert [a["inputSchema"] for a in made[:2]] == [alone["inputSchema"]] * 2
    # The third's input schema does not fit in what is left; its small output schema does.
    assert "inputSchema" not in made[2] and made[2]["outputSchema"] == alone["outputSchema"]
    assert [d["code"] for d in made[2]["diagnostics"]] == [SCHEMA_TOO_LARGE]
    for answer in made[3:]:
        assert "inputSchema" not in answer and "outputSchema" not in answer
        assert [d["code"] for d in answer["diagnostics"]] == [SCHEMA_TOO_LARGE] * 2
        assert "this source's schemas together took more than" in answer["diagnostics"][0]["message"]
        assert [p["name"] for p in answer["parameters"]] == ["m"]
    # A pickled source keeps its budget (and derives its answers again).
    restored = pickle.loads(pickle.dumps(source))
    assert restored.max_chars == source.max_chars
    assert restored.function_schema({"name": "take4"})["inputSchema"] == alone["inputSchema"]
    # Without a budget every answer is made.
    unbounded = ProgramSchemaSource(linked)
    assert all("inputSchema" in unbounded.function_schema({"name": f"take{k}"}) for k in range(5))


def test_compiling_many_tools_whose_schemas_are_each_refused_stops_making_them() -> None:
    # Each function's schema is refused as too large after its definitions are made and measured;
    # a source made for one agent stops making them once they took its budget.
    name = "I" * LONG
    many = "".join(f"  f{i}: {name} required\n" for i in range(1_000))
    steps = []
    for functions in (40, 80):
        takes = "".join(f"function take{k}(m: Many): int =\n  1\n\n" for k in range(functions))
        tools = ", ".join(f'<{AGENT}:FunctionTool description="d" function=take{k} />' for k in range(functions))
        declarations = f"record {name}\n  n: int required\n\nrecord Many\n{many}\n{takes}"
        images = agent_images(declarations, f"[{tools}]", [f"take{k}" for k in range(functions)])
        refused: list[NxAgentError] = []
        steps.append(python_steps(lambda: refused.append(_refusal(images))))
        codes = {d.code for d in refused[0].diagnostics}
        assert codes == {"nx-agent-inexpressible-parameter"}
        assert {d.path for d in refused[0].diagnostics} == {f"tools[{k}]" for k in range(functions)}
    # Twice the tools made every schema twice over; now the second forty cost little.
    assert steps[1] < 1.3 * steps[0], steps


def test_what_each_parameter_holds_is_walked_once_per_type() -> None:
    # `count` parameters of one record of `count` fields, each a record holding the host's context:
    # each parameter walked the whole record for the context it holds.
    steps = []
    for count in (100, 200):
        fields = "".join(f"  f{i}: Inner required\n" for i in range(count))
        params = ", ".join(f"p{i}: Many*" for i in range(count))
        text = (
            f"record Ctx\n  id: string required\n\nrecord Inner\n  ctx: Ctx required\n\n"
            f"record Many\n{fields}\nfunction take({params}): int =\n  1\n"
        )
        linked = program(main(text))
        answers: list[dict[str, Any]] = []
        context = [{"module": "main.nx", "name": "Ctx"}]
        steps.append(
            python_steps(lambda: answers.append(function_schema(linked, {"name": "take"}, host_supplied_types=context)))
        )
        parameters = answers[0]["parameters"]
        assert [p["hostSuppliedWithin"] for p in parameters] == [context] * count
        assert parameters[0]["hostSuppliedWithin"] is not parameters[1]["hostSuppliedWithin"]
    # Twice the parameters of twice the fields were four times the steps.
    assert steps[1] < 2.5 * steps[0], steps


def test_messages_about_many_context_parameters_quote_names_bounded() -> None:
    # 500 parameters, each a record holding the tool context, of a function with a 20,000-character
    # name: every message named the function in full (10 MB for a 40 kB image).
    function = "f" * LONG
    params = ", ".join(f"p{i}: Holder" for i in range(500))
    text = (
        f"record Holder\n  ctx: {AGENT}:ToolContext required\n\n"
        f"function {function}({params}): int =\n  1\n"
    )
    images = one_tool_agent(text, function)
    refused, used = peak(lambda: _refusal(images))
    context = [d for d in refused.diagnostics if d.code == "nx-agent-context-parameter"]
    assert len(context) == 500
    assert all(len(d.message) < 1_000 for d in context)
    assert "characters left out" in context[0].message and "'p0'" in context[0].message
    # Compiling the agent alone takes about 2 MB; the messages in full were 10 MB more.
    assert used < 4 << 20, used


def test_an_alias_target_is_read_once_however_many_fields_it_types(monkeypatch: pytest.MonkeyPatch) -> None:
    from nx_agent.schema import document

    read: list[str] = []
    parse = document.parse_type

    def counted(text: str, *args: Any) -> Any:
        read.append(text)
        return parse(text, *args)

    monkeypatch.setattr(document, "parse_type", counted)
    fields = "".join(f"  f{i}: Names required\n" for i in range(50))
    linked = program(main(f"alias Names\n\nrecord Many\n{fields}\nfunction take(m: Many): int =\n  1\n"))
    docs = {"modules": {"main.nx": {"types": {"Names": {"alias": "string+"}}}}}
    answer = function_schema(linked, {"name": "take"}, descriptions=docs)
    properties = answer["inputSchema"]["$defs"]["Many"]["properties"]
    assert properties == {f"f{i}": {"type": "array", "items": {"type": "string"}, "minItems": 1} for i in range(50)}
    assert read == ["string+"]
