"""The tools on Ray (issue 17, item 3): a local cluster started here (``ray.init(num_cpus=2)``),
tools run as Ray tasks, as an actor pool (one load per actor) and behind a Ray Serve deployment,
each result checked call by call against in-process ``execute``. Needs the ``ray`` extra
(``.ci/run`` installs it)."""

from __future__ import annotations

import json
import os
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("NX_AGENT_REQUIRE_EXTRAS") == "1":  # .ci/run installs ray: there it must run
    import ray
else:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'nx-agent[ray]')")

import travel_support as support  # noqa: E402
from nx_agent.ray import ToolActor, ToolTasks, actor_pool, deployment, map_calls  # noqa: E402

TESTS = str(Path(__file__).parent)
# Ray Serve's own models use pydantic features pydantic 2 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")])}},
    )
    try:
        yield
    finally:
        ray.shutdown()


def calls() -> list[dict[str, Any]]:
    return [
        {"name": name, "input": value, "callId": f"c{i}"} for i, (name, value) in enumerate(support.CALLS * 3)
    ]


def expected() -> list[Any]:
    agent = support.agent()
    return [agent[c["name"]].execute(c["input"], call_id=c["callId"]) for c in calls()]


def test_tools_as_ray_tasks(cluster: None) -> None:
    tasks = ToolTasks(support.agent())
    refs = [tasks.execute(c["name"], c["input"], call_id=c["callId"]) for c in calls()]
    assert ray.get(refs) == expected()


def test_tools_as_tasks_with_host_functions_made_in_the_worker(cluster: None) -> None:
    agent = support.agent()
    tasks = ToolTasks(agent.stored(), make_host=support.make_host)
    refs = [tasks.execute(c["name"], c["input"], call_id=c["callId"]) for c in calls()]
    assert ray.get(refs) == expected()


def test_a_lambda_request_function_travels_by_value_under_ray(cluster: None) -> None:
    from nx_agent import load_agent

    agent = load_agent(support.definition(), support.compiled().images,
                       request=lambda call: {"status": 201, "body": call["request"]["url"]},
                       executors={"crm": support.crm})
    result = ray.get(ToolTasks(agent).execute("lookup_order", {"orderId": "7"}, call_id="c"))
    assert result == agent["lookup_order"].execute({"orderId": "7"}, call_id="c")
    assert result["output"] == {"status": 201, "body": "https://api.example.com/orders/7"}


def test_tools_on_an_actor_pool_load_once_per_actor(cluster: None) -> None:
    pool = actor_pool(support.agent(), 2)
    assert map_calls(pool, calls(), batch=4) == expected()
    actor = ToolActor.remote(support.agent())
    assert ray.get(actor.execute.remote("find_plans", {"teamSize": 5}, "c0")) == expected()[0]
    # One load per actor: the program the actor holds is the one object, call after call.
    ids = ray.get([actor.__ray_call__.remote(lambda self: id(self.agent.program)) for _ in range(3)])
    assert len(set(ids)) == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _http(url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_tools_behind_a_ray_serve_deployment(cluster: None) -> None:
    from ray import serve

    port = _free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        handle = serve.run(deployment(support.agent(), num_replicas=2), route_prefix="/tools", name="nx-tools")
        url = f"http://127.0.0.1:{port}/tools"
        status, listed = _http(url)
        assert status == 200
        assert [t["name"] for t in listed["tools"]] == ["find_plans", "lookup_order", "open_ticket", "search_crm"]
        answers = [_http(url, c) for c in calls()]
        assert [a for _, a in answers] == expected()
        assert {s for s, _ in answers} == {200}
        status, refused = _http(url, {"name": "nothing", "input": {}, "callId": "c"})
        assert status == 400 and refused["error"]["code"] == "invalid-request"
        status, refused = _http(url, {"name": "web_search", "input": {}, "callId": "c"})
        assert status == 400 and refused["error"]["code"] == "invalid-request"
        by_handle = handle.execute.remote("find_plans", {"teamSize": 5}, "c0").result(timeout_s=60)
        assert by_handle == expected()[0]
    finally:
        serve.shutdown()
