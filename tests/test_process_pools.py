"""Every object a host holds crosses into worker processes (issue 17, item 2): a
ProcessPoolExecutor and a multiprocessing.Pool, under the spawn and the fork start methods, each
worker unpickling the object and answering the calls; every answer equal to in-process `execute`."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

import travel_support as support
from nx_agent import examples, ir
from nx_agent.schema import ProgramSchemaSource

METHODS = [m for m in ("spawn", "fork") if m in multiprocessing.get_all_start_methods()]
FIND_PLANS = {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"}


def use(kind: str, value: Any) -> Any:
    """What each kind of object answers; run in a worker and in this process alike."""
    if kind == "program":
        return [ir.call_function(value, FIND_PLANS, {"teamSize": n}, max_operations=1000).value for n in (1, 11)]
    if kind == "module":
        catalog = examples.prepare("plans/catalog.nx")
        return ir.evaluate_function(ir.link_program(value, {"plans/catalog.nx": catalog}), "findPlans", [5]).value
    if kind == "limits":
        try:
            return ir.call_function(examples.link_example(), FIND_PLANS, {"teamSize": 5}, limits=value).usage
        except ir.NxIrError as error:
            return error.code, [d.to_dict() for d in error.diagnostics]
    if kind == "evaluation":
        return value.value, value.usage
    if kind == "error":
        return type(value).__name__, value.code, [d.to_dict() for d in value.diagnostics]
    if kind in ("agent", "tools"):
        return support.run_calls(value)
    if kind == "compiled":
        return value.definition_text, support.run_calls(support.agent_from(value))
    if kind == "source":
        return value.function_schema({"module": "main.nx", "name": "findPlans"})
    raise AssertionError(kind)


def objects() -> list[tuple[str, Any]]:
    program = examples.link_example()
    try:
        ir.evaluate_function(program, "findPlans", [5], max_operations=2)
    except ir.NxIrError as raised:
        error = raised
    agent = support.agent()
    return [
        ("program", program),
        ("module", examples.prepare("plans/main.nx")),
        ("limits", ir.Limits(max_operations=20)),
        ("evaluation", ir.evaluate_function(program, "findPlans", [5], max_operations=1000)),
        ("error", error),
        ("agent", agent),
        ("tools", {tool.name: tool for tool in agent}),
        ("compiled", support.compiled()),
        ("source", ProgramSchemaSource(support.compiled().program, examples.support_descriptions())),
    ]


def _in_worker(kind: str, value: Any) -> Any:
    return use(kind, value)


def _pickled_in_worker(kind: str, data: bytes) -> Any:
    return use(kind, pickle.loads(data))


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return {kind: use(kind, value) for kind, value in objects()}


@pytest.mark.parametrize("method", METHODS)
def test_process_pool_executor(method: str, expected: dict[str, Any]) -> None:
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context(method)) as pool:
        futures = {kind: pool.submit(_in_worker, kind, value) for kind, value in objects()}
        answers = {kind: future.result(timeout=120) for kind, future in futures.items()}
    assert answers == expected
    assert set(answers) == {"program", "module", "limits", "evaluation", "error", "agent", "tools", "compiled", "source"}


@pytest.mark.parametrize("method", METHODS)
def test_multiprocessing_pool(method: str, expected: dict[str, Any]) -> None:
    with multiprocessing.get_context(method).Pool(2) as pool:
        answers = dict(zip(expected, pool.starmap(_in_worker, objects(), chunksize=1)))
    assert answers == expected


@pytest.mark.parametrize("method", METHODS)
def test_objects_come_back_from_workers(method: str) -> None:
    """Results of a worker are pickled back: an agent made in a worker answers here."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method)) as pool:
        agent = pool.submit(support.agent).result(timeout=120)
        evaluation = pool.submit(support.find_plans_value, examples.link_example(), 5).result(timeout=120)
    assert support.run_calls(agent) == support.run_calls(support.agent())
    assert evaluation == support.find_plans_value(examples.link_example(), 5)
