"""Components from Python: every corpus lifecycle (outputs, effects, tokens, key order, operation
counts and input sizes equal to the corpus, each call at its count and one below), the reference
runtime's component cases (parents, stale tokens, patches, descriptors), stored instances (bytes,
JSON, another process, another program, damage) and the update helpers."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from component_programs import BOX
from corpus import CorpusProgram, over_corpus, programs, require_corpus, with_state_records
from nx_agent import ir

PROGRAMS = programs()
LIFECYCLES: list[tuple[CorpusProgram, dict[str, Any]]] = []
for _program in PROGRAMS:
    _spec = _program.path / "program.json"
    if _spec.is_file():
        for _lifecycle in json.loads(_spec.read_text("utf-8")).get("lifecycles", []):
            LIFECYCLES.append((_program, _lifecycle))


def expected(program: CorpusProgram, name: str) -> dict[str, Any]:
    path = program.path / "expected" / name
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}


def link(program: CorpusProgram, entry: str, *, schema: int = 5) -> ir.Program:
    """The program's stripped images as schema 5, or as NX 0.10 writes it (schema 6)."""

    def text(m: Any) -> str:
        return with_state_records(m.stripped_text) if schema == 6 else m.stripped_text

    links = [text(m) for m in program.modules.values()]
    modules = {
        identity: ir.prepare_module(ir.assemble(text(m), version=m.version, schema=schema, links=links))
        for identity, m in program.modules.items()
    }
    return ir.link_program(modules[entry], modules)


def key_order(value: Any) -> Any:
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


def by_name(name: str) -> CorpusProgram:
    """The corpus program ``name``; without the corpus, the calling test (or fixture) is skipped."""
    require_corpus()
    return next(p for p in PROGRAMS if p.name == name)


@pytest.mark.parametrize("schema", [5, 6])
@over_corpus(("program", "lifecycle"), LIFECYCLES, ids=[f"{p.name}:{lc['component']}" for p, lc in LIFECYCLES])
def test_corpus_lifecycle(program: CorpusProgram, lifecycle: dict[str, Any], schema: int) -> None:
    key = f"{lifecycle['module']}::{lifecycle['component']}"
    linked = link(program, lifecycle["module"], schema=schema)
    recorded = expected(program, "results.json")[key]
    counts = expected(program, "operations.json").get("counts", {}).get(key)
    sizes = expected(program, "operations.json").get("inputSizes", {}).get(key)
    props = lifecycle.get("props")
    ample = {"max_operations": 2**40, "max_input_size": 2**40}

    init = ir.initialize_component(linked, lifecycle["component"], props, **ample)
    assert init.output == recorded["initial"]
    assert key_order(init.output) == key_order(recorded["initial"])
    if counts:
        assert init.operations == counts["initial"]
        assert ir.initialize_component(linked, lifecycle["component"], props, max_operations=counts["initial"]).output == init.output
        with pytest.raises(ir.NxIrError) as refused:
            ir.initialize_component(linked, lifecycle["component"], props, max_operations=counts["initial"] - 1)
        assert refused.value.code == "nx-ir-resource-limit"
        assert refused.value.usage["operations"] <= counts["initial"] - 1
    if sizes:
        assert init.input_size == sizes["initial"]
    instance = init.instance
    assert instance.generation == 1
    for at, batch in enumerate(lifecycle["batches"]):
        done = ir.dispatch_component_actions(linked, instance, batch, **ample)
        assert done.output == recorded["batches"][at]["rendered"]
        assert key_order(done.output) == key_order(recorded["batches"][at]["rendered"])
        assert done.effects == recorded["batches"][at]["effects"]
        assert done.instance.generation == instance.generation + 1
        if counts:
            count = counts["batches"][at]
            assert done.operations == count
            assert ir.dispatch_component_actions(linked, instance, batch, max_operations=count).output == done.output
            with pytest.raises(ir.NxIrError) as refused:
                ir.dispatch_component_actions(linked, instance, batch, max_operations=count - 1)
            assert refused.value.code == "nx-ir-resource-limit"
        if sizes:
            assert done.input_size == sizes["batches"][at]
        instance = done.instance


@over_corpus(("program", "lifecycle"), LIFECYCLES[:1], ids=[f"{p.name}:{lc['component']}" for p, lc in LIFECYCLES[:1]])
def test_component_calls_take_max_memory_as_a_keyword(program: CorpusProgram, lifecycle: dict[str, Any]) -> None:
    linked = link(program, lifecycle["module"])
    name, props = lifecycle["component"], lifecycle.get("props")
    for limits in ({"max_memory": 1}, {"limits": ir.Limits(max_memory=1)}):
        with pytest.raises(ir.NxIrError) as refused:
            ir.initialize_component(linked, name, props, **limits)  # type: ignore[arg-type]
        assert refused.value.code == "nx-ir-resource-limit"
        assert refused.value.diagnostics[0].limit == {"name": "memory", "value": 1}
    init = ir.initialize_component(linked, name, props, max_memory=1 << 30)
    with pytest.raises(ir.NxIrError) as refused:
        ir.dispatch_component_actions(linked, init.instance, lifecycle["batches"][0], max_memory=1)
    assert refused.value.diagnostics[0].limit == {"name": "memory", "value": 1}


# ---- the reference runtime's component cases (handlers program) -----------------------------

TAP = {"$type": "Button.Tapped"}


def tap(token: str) -> dict[str, Any]:
    return {"$type": "ActionHandlerInvocation", "token": token, "action": TAP}


@pytest.fixture(scope="module")
def handlers() -> ir.Program:
    return link(by_name("handlers"), "main.nx")


@over_corpus("schema", [5, 6])
def test_instances_are_never_changed_and_a_failed_batch_leaves_them(schema: int) -> None:
    linked = link(by_name("handlers"), "main.nx", schema=schema)
    first = ir.initialize_component(linked, "Counter", {"step": 2}).instance
    second = ir.dispatch_component_actions(linked, first, [tap("h1-1"), tap("h1-1")])
    assert second.state == {"count": 4, "last": "count"}
    # The first instance is as it was.
    assert ir.dispatch_component_actions(linked, first, [tap("h1-1")]).state["count"] == 2
    with pytest.raises(ir.NxIrError) as stale:
        ir.dispatch_component_actions(linked, second.instance, [tap("h2-1"), tap("h1-1")])
    assert stale.value.code == "nx-ir-handler-token"
    assert "h1-1" in str(stale.value)
    assert ir.dispatch_component_actions(linked, second.instance, [tap("h2-1")]).state["count"] == 6
    with pytest.raises(ir.NxIrError) as unknown:
        ir.dispatch_component_actions(linked, second.instance, [{"$type": "Nope"}])
    assert unknown.value.code == "nx-ir-component-action"
    with pytest.raises(ir.NxIrError) as not_an_object:
        ir.dispatch_component_actions(linked, second.instance, [1])
    assert not_an_object.value.code == "nx-ir-boundary-type"
    assert "dispatch entry 0" in str(not_an_object.value)


@over_corpus("schema", [5, 6])
def test_a_child_reaches_its_parents_handler(schema: int) -> None:
    linked = link(by_name("handlers"), "main.nx", schema=schema)
    page = ir.initialize_component(linked, "Page")
    search_box = page.output["children"][3]
    props = {k: v for k, v in search_box.items() if k != "$type"}
    with pytest.raises(ir.NxIrError) as no_parent:
        ir.initialize_component(linked, "SearchBox", props)
    assert no_parent.value.code == "nx-ir-boundary-field"
    child = ir.initialize_component(linked, "SearchBox", props, parent=page.instance)
    done = ir.dispatch_component_actions(linked, child.instance, [{"$type": "SearchSubmitted", "searchString": "docs"}])
    assert done.effects == [{"$type": "DoSearch", "search": "docs"}]
    assert done.state == child.state
    with pytest.raises(ir.NxIrError) as missing:
        ir.dispatch_component_actions(linked, child.instance, [{"$type": "SearchSubmitted"}])
    assert missing.value.code == "nx-ir-boundary-field"
    assert "searchString" in str(missing.value)
    stale = {**props, "onSearchSubmitted": {"$type": "ActionHandler", "action": "SearchSubmitted", "token": "h9-9"}}
    with pytest.raises(ir.NxIrError) as unknown_token:
        ir.initialize_component(linked, "SearchBox", stale, parent=page.instance)
    assert unknown_token.value.code == "nx-ir-handler-token"


@over_corpus("schema", [5, 6])
def test_state_is_normalized_and_patched_as_the_reference_does(schema: int) -> None:
    linked = link(by_name("handlers"), "main.nx", schema=schema)
    update = "Counter.State.Update" if schema == 6 else "Counter.Update"
    with pytest.raises(ir.NxIrError) as extra:
        ir.evaluate_component(linked, "Counter", {}, {"count": 1, "last": "count", "extra": 2})
    assert extra.value.code == "nx-ir-boundary-field"
    with pytest.raises(ir.NxIrError) as missing:
        ir.normalize_component_state(linked, "Counter", {})
    assert missing.value.code == "nx-ir-boundary-field"
    with pytest.raises(ir.NxIrError) as wrong_type:
        ir.apply_component_state_patch(linked, "Counter", {"count": 1, "last": "count"}, {"count": "two"})
    assert wrong_type.value.code == "nx-ir-boundary-type"
    with pytest.raises(ir.NxIrError) as unknown:
        ir.apply_component_state_patch(linked, "Counter", {"count": 1, "last": "count"}, {"nope": 1})
    assert unknown.value.code == "nx-ir-state-field"
    with pytest.raises(ir.NxIrError) as other:
        ir.apply_component_state_patch(linked, "Counter", {"count": 1, "last": "count"}, {"$type": "Page.Update"})
    assert other.value.code == "nx-ir-state-patch"
    assert update in str(other.value)
    patched = ir.apply_component_state_patch(linked, "Counter", {"count": 1, "last": "count"}, {"$type": update, "count": 5})
    assert patched.value == {"count": 5, "last": "count"}
    rendered = ir.evaluate_component(linked, "Counter", {}, {"count": 3, "last": "count"})
    assert rendered.value["children"][1]["onTapped"] == {"$type": "ActionHandler", "action": "Button.Tapped"}
    given = ir.initialize_component(linked, "Counter", state={"count": 7, "last": "count"})
    assert given.state == {"count": 7, "last": "count"}
    assert ir.construct_component_descriptor(linked, "SearchBox", {"placeholder": "Look"}).value == {
        "$type": "SearchBox",
        "placeholder": "Look",
    }
    with pytest.raises(ir.NxIrError) as content:
        ir.construct_component_descriptor(linked, "SearchBox", {"placeholder": "Look"}, [1])
    assert content.value.code == "nx-ir-boundary-field"
    with pytest.raises(ir.NxIrError) as not_found:
        ir.initialize_component(linked, "NoSuchComponent")
    assert not_found.value.code == "nx-ir-component"


# ---- stored instances ------------------------------------------------------------------------

STEP = f"""
import sys
sys.path.insert(0, {str(__import__("pathlib").Path(__file__).parent)!r})
from test_components import link, by_name, tap
from nx_agent import ir
linked = link(by_name("handlers"), "main.nx", schema=int(sys.argv[1]))
stored = sys.stdin.buffer.read()
instance = ir.restore_component_instance(linked, stored)
done = ir.dispatch_component_actions(linked, instance, [tap(f"h{{instance.generation}}-" + sys.argv[2])], max_operations=10**6)
import json
sys.stdout.write(json.dumps([done.output, done.effects, done.state, done.operations]) + "\\n")
sys.stdout.flush()
sys.stdout.buffer.write(done.instance.to_bytes())
"""


@over_corpus("schema", [5, 6])
def test_thirty_dispatches_in_fresh_processes_equal_one_process(schema: int) -> None:
    linked = link(by_name("handlers"), "main.nx", schema=schema)
    # Taps "Add" and, every fifth time, "Reset" (which also emits an effect).
    which = ["2" if n % 5 == 4 else "1" for n in range(30)]
    instance = ir.initialize_component(linked, "Counter", {"step": 3}).instance
    in_process = []
    for number in which:
        done = ir.dispatch_component_actions(linked, instance, [tap(f"h{instance.generation}-{number}")], max_operations=10**6)
        in_process.append([done.output, done.effects, done.state, done.operations])
        instance = done.instance
    stored = ir.initialize_component(linked, "Counter", {"step": 3}).instance.to_bytes()
    across = []
    for number in which:
        ran = subprocess.run([sys.executable, "-c", STEP, str(schema), number], input=stored, capture_output=True, check=True)
        line, _, stored = ran.stdout.partition(b"\n")
        across.append(json.loads(line))
    assert across == in_process
    assert stored == instance.to_bytes()


def test_a_stored_instance_round_trips_as_bytes_and_json(handlers: ir.Program) -> None:
    init = ir.initialize_component(handlers, "Tens")
    for stored in (init.instance.to_bytes(), init.instance.to_json()):
        restored = ir.restore_component_instance(handlers, stored)
        assert restored.tokens == init.instance.tokens == ["h1-1", "h1-2", "h1-3"]
        done = ir.dispatch_component_actions(handlers, restored, [tap("h1-2")])
        assert done.output == ir.dispatch_component_actions(handlers, init.instance, [tap("h1-2")]).output
    assert json.loads(init.instance.to_json())["component"] == "Tens"


def test_an_instance_pickles_with_its_program(handlers: ir.Program) -> None:
    import pickle

    init = ir.initialize_component(handlers, "Tens")
    copied = pickle.loads(pickle.dumps(init.instance))
    assert copied.tokens == init.instance.tokens and copied.to_bytes() == init.instance.to_bytes()
    expected = ir.dispatch_component_actions(handlers, init.instance, [tap("h1-3")])
    done = ir.dispatch_component_actions(handlers, copied, [tap("h1-3")])
    assert (done.output, done.state, done.usage) == (expected.output, expected.state, expected.usage)


def test_a_restored_instance_keeps_what_its_state_and_handlers_share() -> None:
    # Box's state and its handler's capture are one record, which the stored form writes once;
    # restored, they are one value again, so the instance writes the very bytes and JSON it was
    # read from, however often it goes round.
    program = ir.link_program(ir.prepare_module(ir.assemble(BOX, schema=5)))
    instance = ir.initialize_component(program, "Box").instance
    for _ in range(5):
        instance = ir.dispatch_component_actions(program, instance, [tap(instance.tokens[0])]).instance
    data, text = instance.to_bytes(), instance.to_json()
    values = json.loads(text)["values"]
    assert [value[0] for value in values] == ["int"] + ["record"] * 5 + ["handler"]
    assert json.loads(text)["state"] == [["s", 5]] and values[-1][-1] == [5]
    for stored in (data, text):
        restored = ir.restore_component_instance(program, stored)
        assert (restored.to_bytes(), restored.to_json()) == (data, text)
        again = ir.restore_component_instance(program, restored.to_bytes())
        assert again.to_bytes() == data
        expected = ir.dispatch_component_actions(program, instance, [tap(instance.tokens[0])])
        done = ir.dispatch_component_actions(program, restored, [tap(restored.tokens[0])])
        assert (done.output, done.state, done.usage) == (expected.output, expected.state, expected.usage)
        assert done.instance.to_bytes() == expected.instance.to_bytes()


def test_an_instance_of_another_program_is_refused(handlers: ir.Program) -> None:
    other = link(by_name("evaluation-cost"), "main.nx")
    revised = link(by_name("handlers"), "main.nx", schema=6)
    instance = ir.initialize_component(handlers, "Counter").instance
    for program in (other, revised):
        with pytest.raises(ir.NxIrError) as refused:
            ir.restore_component_instance(program, instance.to_bytes())
        assert refused.value.code == "nx-ir-component"
        assert "another program" in str(refused.value)
    with pytest.raises(ir.NxIrError) as dispatched:
        ir.dispatch_component_actions(revised, instance, [tap("h1-1")])
    assert dispatched.value.code == "nx-ir-component"


def test_damaged_stored_instances_are_refused_with_a_code(handlers: ir.Program) -> None:
    stored = ir.initialize_component(handlers, "Page").instance.to_bytes()
    outcomes = {"restored": 0, "refused": 0}
    for at in range(len(stored)):
        for damage in (stored[:at], stored[:at] + bytes([stored[at] ^ 0xFF]) + stored[at + 1 :]):
            try:
                ir.restore_component_instance(handlers, damage)
                outcomes["restored"] += 1
            except ir.NxIrError as refused:
                assert refused.code == "nx-ir-component"
                outcomes["refused"] += 1
    assert outcomes["refused"] > len(stored)
    text = json.loads(ir.initialize_component(handlers, "Counter").instance.to_json())
    for change in (
        {"component": "Nope"},
        {"values": text["values"] + [["handler", "main.nx", "Counter", 4000000000, []]]},
        {"values": text["values"] + [["handler", "other.nx", "Counter", 0, []]]},
        {"values": text["values"] + [["function", "main.nx", "nope"]]},
        {"values": text["values"] + [["seq", [len(text["values"]) + 5]]]},
        {"handlers": 3},
        {"state": [["bogus", 0]]},
    ):
        with pytest.raises(ir.NxIrError) as refused:
            ir.restore_component_instance(handlers, json.dumps({**text, **change}))
        assert refused.value.code == "nx-ir-component"
    with pytest.raises(ir.NxIrError):
        ir.restore_component_instance(handlers, "nonsense")


# ---- update helpers --------------------------------------------------------------------------


def test_the_update_helpers_follow_the_intrinsics() -> None:
    linked = link(by_name("records"), "main.nx")
    assert ir.apply_update({"$type": "Opt", "c": "q", "b": 1}, {"$type": "Opt.Update", "b": None, "a": 2}) == {
        "$type": "Opt",
        "a": 2,
        "c": "q",
    }
    assert ir.merge_updates({"$type": "Opt.Update", "a": 1}, {"$type": "Opt.Update", "a": None, "b": 2}) == {
        "$type": "Opt.Update",
        "a": None,
        "b": 2,
    }
    assert ir.diff_records({"$type": "P", "x": 1, "y": [1, 2]}, {"$type": "P", "x": 1.0, "y": [1, 3]}) == {
        "$type": "P.Update",
        "y": [1, 3],
    }
    with pytest.raises(ir.NxIrError) as refused:
        ir.apply_update({"$type": "A"}, {"$type": "B.Update"})
    assert refused.value.code == "nx-ir-intrinsic"
    with pytest.raises(ir.NxIrError) as unknown:
        ir.changed_fields(linked, {"$type": "Nope.Update"})
    assert unknown.value.code == "nx-ir-intrinsic"
