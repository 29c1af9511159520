"""A loaded agent's tools on Ray (``pip install 'nx-agent[ray]'``): as Ray tasks, as a pool of
actors that each load the agent once, and as a Ray Serve deployment.

- :class:`ToolTasks` puts the agent in Ray's object store once; each :meth:`~ToolTasks.execute`
  is one Ray task that answers the tool's result. A task unpickles the agent (its images are
  prepared and linked again: tens of microseconds), so tasks suit a few long calls.
- :func:`actor_pool` starts ``size`` :class:`ToolActor` actors, each holding the agent loaded once;
  :func:`map_calls` shares calls out among them, in batches, and answers the results in order.
  This is the shape for many short calls.
- :func:`deployment` is a Ray Serve deployment serving the tools as a plain JSON endpoint: ``GET``
  lists the tools as the definition holds them, ``POST`` ``{"name", "input", "callId",
  "context"?}`` answers the tool's result. Serve routes each HTTP request to any replica and
  scales by replicas, so a stateless request/response endpoint is its convention; MCP's streamable
  HTTP keeps a session per client (or, stateless, needs the SDK's session manager running in the
  app's lifespan), which Serve's per-request routing does not give. For MCP clients at scale, run
  ``nx-agent serve --http --stateless --workers N`` behind a load balancer instead.

The agent travels by pickle (:mod:`nx_agent.agent.travel`): its request function and executors go
with it when they pickle, and Ray's cloudpickle pickles lambdas and closures too. A function that
holds what cannot leave its process (an open HTTP client) is made where the tools run: pass
``agent.stored()`` and a ``make_host`` function (module-level) that answers ``{"request": ...,
"executors": ...}`` in the worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Union

import ray

from .agent import LoadedAgent, load_agent

__all__ = ["ToolActor", "ToolTasks", "actor_pool", "deployment", "map_calls"]

AgentSource = Union[LoadedAgent, Mapping[str, Any]]
"""A loaded agent, or ``agent.stored()`` (made into one where it arrives, with ``make_host``)."""
Call = Mapping[str, Any]
"""One call: ``{"name", "input", "callId", "context"?}``."""


def _agent(source: AgentSource, make_host: Callable[[], Mapping[str, Any]] | None) -> LoadedAgent:
    if isinstance(source, LoadedAgent):
        return source
    return load_agent(**source, **(make_host() if make_host is not None else {}))


def _run(agent: LoadedAgent, call: Call) -> Any:
    return agent[call["name"]].execute(call["input"], call_id=call["callId"], context=call.get("context"))


@ray.remote
def _execute_task(source: AgentSource, make_host: Any, call: Call) -> Any:
    return _run(_agent(source, make_host), call)


class ToolTasks:
    """The agent's tools as Ray tasks: the agent is put in the object store once."""

    def __init__(self, agent: AgentSource, *, make_host: Callable[[], Mapping[str, Any]] | None = None) -> None:
        self._agent = ray.put(agent)
        self._make_host = make_host

    def execute(self, name: str, input: Any, *, call_id: str, context: Any = None) -> Any:
        """A Ray ``ObjectRef`` of the result of one call of tool ``name``."""
        call = {"name": name, "input": input, "callId": call_id, "context": context}
        return _execute_task.remote(self._agent, self._make_host, call)


class _ToolActor:
    """Holds the agent, loaded once when the actor starts, and runs calls on it."""

    def __init__(self, agent: AgentSource, make_host: Callable[[], Mapping[str, Any]] | None = None) -> None:
        self.agent = _agent(agent, make_host)

    def execute(self, name: str, input: Any, call_id: str, context: Any = None) -> Any:
        return self.agent[name].execute(input, call_id=call_id, context=context)

    def execute_many(self, calls: Sequence[Call]) -> list[Any]:
        return [_run(self.agent, call) for call in calls]


ToolActor = ray.remote(_ToolActor)
"""The Ray actor class: ``ToolActor.remote(agent)``; methods ``execute`` and ``execute_many``."""


def actor_pool(
    agent: AgentSource, size: int, *, make_host: Callable[[], Mapping[str, Any]] | None = None
) -> ray.util.ActorPool:
    """``size`` :class:`ToolActor` actors in a ``ray.util.ActorPool``, the agent put in the object
    store once and loaded once per actor."""
    from ray.util import ActorPool

    shared = ray.put(agent)
    return ActorPool([ToolActor.remote(shared, make_host) for _ in range(size)])


def map_calls(pool: ray.util.ActorPool, calls: Iterable[Call], *, batch: int = 64) -> list[Any]:
    """Every call's result, in order: the calls shared out among the pool's actors ``batch`` at a time."""
    calls = list(calls)
    batches = [calls[at : at + batch] for at in range(0, len(calls), batch)]
    results: list[Any] = []
    for answered in pool.map(lambda actor, part: actor.execute_many.remote(part), batches):
        results.extend(answered)
    return results


class _ToolEndpoint:
    """The Serve deployment's class: the agent loaded once per replica."""

    def __init__(self, agent: AgentSource, make_host: Callable[[], Mapping[str, Any]] | None = None) -> None:
        self.agent = _agent(agent, make_host)
        self.listed = [tool.definition for tool in self.agent if tool.kind != "provider"]

    async def __call__(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        if request.method == "GET":
            return JSONResponse({"tools": self.listed})
        try:
            body = await request.json()
            call = {"name": body["name"], "input": body["input"], "callId": body["callId"], "context": body.get("context")}
            tool = self.agent[call["name"]]
        except (ValueError, KeyError, TypeError) as error:
            message = f"A call is a JSON object with 'name' (a tool here), 'input' and 'callId': {error!r}."
            return JSONResponse({"ok": False, "error": {"code": "invalid-request", "message": message}}, status_code=400)
        if tool.kind == "provider":
            message = f"Tool '{tool.name}' is run by the model's provider, not here."
            return JSONResponse({"ok": False, "error": {"code": "invalid-request", "message": message}}, status_code=400)
        return JSONResponse(await tool.aexecute(call["input"], call_id=call["callId"], context=call["context"]))

    async def execute(self, name: str, input: Any, call_id: str, context: Any = None) -> Any:
        """For a ``DeploymentHandle``: ``handle.execute.remote(name, input, call_id)``."""
        return await self.agent[name].aexecute(input, call_id=call_id, context=context)


def deployment(
    agent: AgentSource,
    *,
    make_host: Callable[[], Mapping[str, Any]] | None = None,
    name: str = "nx_agent_tools",
    **options: Any,
) -> Any:
    """A bound Ray Serve application serving the agent's tools as a JSON endpoint (see the module
    docs); ``options`` go to ``serve.deployment`` (``num_replicas``, ``ray_actor_options``...).
    Run it with ``serve.run(app, route_prefix="/tools")``."""
    from ray import serve

    made: Any = serve.deployment(_ToolEndpoint, name=name, **options)
    return made.bind(agent, make_host)
