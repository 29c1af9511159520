"""Test programs of the agent layer, as explain text assembled into images.

`EXECUTE` is the fixture program of the reference's execute tests (agent-package §8.8–§8.10): its
NX functions written out by us as explain text, linked against the bundled transcription of the
`@nx/agent` library and a host library `host/Chat.nx` that declares the host's tool context types.
The definitions the tests run are written out by hand in the stored format (§2), as a host holds one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nx_agent import examples, ir

AGENT = "@nx/agent/agent.nx"
AGENT_VERSION = "b06c00c30be50ada"
AGENT_FINGERPRINT = 11527925250760699671
PRELUDE_LINK = 'links @nx/prelude.nx version "1" fingerprint 3805895034114390176'
AGENT_LINK = f'links {AGENT} version "{AGENT_VERSION}" fingerprint {AGENT_FINGERPRINT}'

LONG_NAME = "context" + "X" * 63

CHAT = f"""module host/Chat.nx fingerprint 7001
{AGENT_LINK}
entrypoints functions [] components []

record ChatToolContext extends {AGENT}:ToolContext
  callId: string required
  conversationId: string required
  contactEmail: string?

record AuditToolContext extends {AGENT}:ToolContext
  callId: string required
  actor: string required
"""

_A = AGENT
MAIN = f"""module main.nx fingerprint 7002
{PRELUDE_LINK}
links host/Chat.nx version "" fingerprint 7001
{AGENT_LINK}
requires function-values-v1 ranges-v1
entrypoints functions [findPlans divide spin whoAmI callIdOf orderFor whoAmIAliased weigh twice longNamed labelOf readInner lookupOrder lookupMine placeOrder listOrders orderAt notArguments] components []

record Plan
  name: string required
  seats: int required
  monthlyPrice: int required

alias Context

record Req
  n: int required
  label: string = n

record Inner
  a: string required
  b: string?

record NestedContext extends {_A}:ToolContext
  callId: string required
  inner: Inner?
  extra: object?

record NewOrder
  sku: string required
  quantity: int required

value shop =
  <{_A}:HttpConnection baseUrl="https://api.example.com" name="shop" />

function findPlans(teamSize: int, maxMonthlyPrice?: int): Plan* =
  <Plan monthlyPrice=20 name="Team" seats=teamSize />

function divide(n: int): int =
  (10 idiv n)

function spin(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
      (i mul j)

function whoAmI(context: host/Chat.nx:ChatToolContext): string =
  context.conversationId

function callIdOf(context: {_A}:ToolContext): string =
  context.callId

function orderFor(orderId: string, context: host/Chat.nx:ChatToolContext): string =
  ((((orderId concat "@") concat context.conversationId) concat "#") concat context.callId)

function whoAmIAliased(context: host/Chat.nx:ChatToolContext): string =
  context.conversationId

function weigh(context: host/Chat.nx:ChatToolContext, note?: string): string =
  context.conversationId

function twice(first: host/Chat.nx:ChatToolContext, second: {_A}:ToolContext, note?: string): string =
  (first.callId concat second.callId)

function longNamed({LONG_NAME}: host/Chat.nx:ChatToolContext, note?: string): string =
  {LONG_NAME}.callId

function labelOf(req: Req): string =
  req.label

function readInner(context: NestedContext): string =
  "read"

function lookupOrder(orderId: string): {_A}:HttpArguments =
  <{_A}:HttpArguments pathParams=<{_A}:HttpParam name="orderId" value=orderId /> />

function lookupMine(orderId: string, context: host/Chat.nx:ChatToolContext, note?: string): {_A}:HttpArguments =
  <{_A}:HttpArguments pathParams=<{_A}:HttpParam name="orderId" value=orderId /> query=[<{_A}:HttpParam name="conversation" value=context.conversationId />, <{_A}:HttpParam name="call" value=context.callId />] />

function placeOrder(sku: string, quantity: int = 1): {_A}:HttpArguments =
  <{_A}:HttpArguments body=<NewOrder quantity=quantity sku=sku /> query=<{_A}:HttpParam name="source" value="agent" /> />

function listOrders(pages: int): {_A}:HttpArguments =
  <{_A}:HttpArguments
    query=for i in <@nx/prelude.nx:Range end=pages endInclusive=false start=0 /> yield
      for j in <@nx/prelude.nx:Range end=pages endInclusive=false start=0 /> yield
        <{_A}:HttpParam name="p" value="1" />
  >
  </{_A}:HttpArguments>

function orderAt(position: int): {_A}:HttpArguments =
  <{_A}:HttpArguments
    query=<{_A}:HttpParam name="n"
      value=if ((10 idiv position) gt 1) then
        "many"
      else
        "few"
    >
    </{_A}:HttpParam>
  >
  </{_A}:HttpArguments>

function notArguments(orderId: string): string =
  orderId
"""


def agent_library_text() -> str:
    """The bundled transcription of the `@nx/agent` library."""
    return examples.library_text()


def link_execute_program() -> ir.Program:
    """The fixture program, linked."""
    texts = {AGENT: agent_library_text(), "host/Chat.nx": CHAT, "main.nx": MAIN}
    versions = {AGENT: AGENT_VERSION}
    modules = {}
    for identity, text in texts.items():
        links = [other for key, other in texts.items() if key != identity]
        image = ir.assemble(text, version=versions.get(identity, ""), links=links)
        modules[identity] = ir.prepare_module(image)
    return ir.link_program(modules["main.nx"], modules)


def agent_images(declarations: str, tools: str, functions: Sequence[str], *, ranges: bool = False) -> dict[str, bytes]:
    """Images of an agent (``main.nx``'s ``root``) whose ``tools`` are the explain expression
    ``tools``, over ``declarations`` (explain text of ``main.nx``'s other declarations, whose
    ``functions`` are entrypoints), with the `@nx/agent` library; ``ranges`` links the prelude
    (for ``Range``)."""
    library = agent_library_text()
    links = f"{PRELUDE_LINK}\n{AGENT_LINK}" if ranges else AGENT_LINK
    features = "function-values-v1 ranges-v1" if ranges else "function-values-v1"
    text = f"""module main.nx fingerprint 7003
{links}
requires {features}
entrypoints functions [root {" ".join(functions)}] components []

{declarations.rstrip()}

function root(): {AGENT}:Agent =
  <{AGENT}:Agent name="tools" tools={tools}>
    "Use the tools."
  </{AGENT}:Agent>
"""
    return {
        "main.nx": ir.assemble(text, links=[library]),
        AGENT: ir.assemble(library, version=AGENT_VERSION),
    }


def one_tool_agent(declarations: str, function: str) -> dict[str, bytes]:
    """:func:`agent_images` whose one tool is the function ``function`` of ``declarations``."""
    tool = f'<{AGENT}:FunctionTool description="The one tool." function={function} />'
    return agent_images(declarations, f"[{tool}]", [function])


SCHEMA = "https://json-schema.org/draft/2020-12/schema"
FUNCTION_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WEB_SEARCH_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True}
HTTP_ANNOTATIONS = {
    "get": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True},
    "post": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True},
}
CHAT_CONTEXT = {"module": "host/Chat.nx", "name": "ChatToolContext"}
TOOL_CONTEXT = {"module": AGENT, "name": "ToolContext"}


def _input(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"$schema": SCHEMA, "type": "object", "properties": properties, "required": required, "additionalProperties": False}


def function_tool(name: str, function: str, context: list[tuple[str, dict[str, str]]] = (), **properties: Any) -> dict[str, Any]:  # type: ignore[assignment]
    """A stored `function` tool (§2.2/§2.3) naming `main.nx/<function>`."""
    return {
        "name": name,
        "description": f"Runs {function}.",
        "inputSchema": _input(dict(properties), sorted(properties)),
        "annotations": dict(FUNCTION_ANNOTATIONS),
        "kind": "function",
        "config": {
            "function": {"module": "main.nx", "name": function},
            "contextParameters": [{"name": p, "type": dict(t)} for p, t in context],
        },
    }


def http_output_schema() -> dict[str, Any]:
    return {"$schema": SCHEMA, "type": "object", "properties": {"status": {"type": "integer"}, "body": {}}, "required": ["status"]}


def http_tool(
    name: str,
    function: str,
    method: str,
    path: str,
    placeholders: list[str],
    context: list[tuple[str, dict[str, str]]] = (),  # type: ignore[assignment]
    base_url: str = "https://api.example.com",
) -> dict[str, Any]:
    """A stored `http` tool over the connection `shop`."""
    return {
        "name": name,
        "description": f"Requests {function}.",
        "inputSchema": _input({}, []),
        "outputSchema": http_output_schema(),
        "annotations": dict(HTTP_ANNOTATIONS[method]),
        "kind": "http",
        "config": {
            "arguments": {"module": "main.nx", "name": function},
            "contextParameters": [{"name": p, "type": dict(t)} for p, t in context],
            "connection": {"name": "shop", "baseUrl": base_url},
            "method": method,
            "path": path,
            "pathPlaceholders": placeholders,
        },
    }


def execute_definition() -> dict[str, Any]:
    """The definition of the execute tests' agent: 13 tools in the reference's order."""
    chat = [("context", CHAT_CONTEXT)]
    tools = [
        function_tool("find_plans", "findPlans", teamSize={"type": "integer"}),
        function_tool("divide", "divide", n={"type": "integer"}),
        function_tool("spin", "spin", n={"type": "integer"}),
        function_tool("who_am_i", "whoAmI", chat),
        function_tool("call_id_of", "callIdOf", [("context", TOOL_CONTEXT)]),
        function_tool("order_for", "orderFor", chat, orderId={"type": "string"}),
        function_tool("weigh", "weigh", chat),
        function_tool("twice", "twice", [("first", CHAT_CONTEXT), ("second", TOOL_CONTEXT)]),
        function_tool("long_named", "longNamed", [(LONG_NAME, CHAT_CONTEXT)]),
        {
            "name": "web_search",
            "description": "Searches the web and returns relevant results.",
            "inputSchema": {"$schema": SCHEMA, "type": "object", "properties": {}, "additionalProperties": False},
            "annotations": dict(WEB_SEARCH_ANNOTATIONS),
            "kind": "provider",
            "config": {"provider": "web_search"},
        },
        http_tool("lookup_order", "lookupOrder", "get", "/orders/{orderId}", ["orderId"]),
        {
            "name": "search_records",
            "description": "Searches records.",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"], "additionalProperties": False},
            "annotations": dict(FUNCTION_ANNOTATIONS),
            "kind": "builtin",
            "config": {"builtin": "record_search", "recordKind": "company"},
        },
        function_tool("who_am_i_aliased", "whoAmIAliased", chat),
    ]
    return {"formatVersion": 1, "name": "support", "instructions": "Be brief.", "documents": [], "limits": {}, "tools": tools}


def http_definition() -> dict[str, Any]:
    """The definition of the HTTP execution tests' agent (§8.10)."""
    chat = [("context", CHAT_CONTEXT)]
    tools = [
        http_tool("lookup_order", "lookupOrder", "get", "/orders/{orderId}", ["orderId"]),
        http_tool("lookup_mine", "lookupMine", "get", "/orders/{orderId}", ["orderId"], chat),
        http_tool("place_order", "placeOrder", "post", "/orders", []),
        http_tool("list_orders", "listOrders", "get", "/orders", []),
        http_tool("order_at", "orderAt", "get", "/orders", []),
        http_tool("undeclared_parameter", "lookupOrder", "get", "/orders", []),
        http_tool("body_on_get", "placeOrder", "get", "/orders", []),
    ]
    return {"formatVersion": 1, "name": "support", "instructions": "Be brief.", "documents": [], "limits": {}, "tools": tools}


def failed(result: Any) -> Any:
    """``result``, checked to be a failure."""
    assert result["ok"] is False, result
    return result


def succeeded(result: Any) -> Any:
    """``result``, checked to be a success."""
    assert result["ok"] is True, result
    return result
