"""conformance-cases.md §E.host (H1–H23): host-supplied types (`hostSuppliedTypes`), with the
`@nx/agent` library as the corpus holds it and a `libraries/chat-link/ChatLink.nx` library.

H12 (the `page` and `plans` parameters) and H17 name a listed type through a generic type argument,
which an image erases (`<Page T=ChatToolContext />` is stored as `Page`, its `items` as
`object+`): there the image holds no listed type, and the answers say so.
"""

from __future__ import annotations

from typing import Any

from nx_agent.schema import TOOL_CONTEXT, function_schema
from schema_programs import agent_library, dumps, main, module, program

AGENT = "@nx/agent/agent.nx"
CHAT = "libraries/chat-link/ChatLink.nx"
TC = {"module": AGENT, "name": "ToolContext"}
CHAT_TC = {"module": CHAT, "name": "ChatToolContext"}

CHAT_LINK = module(
    CHAT,
    f"record ChatToolContext extends {AGENT}:ToolContext\n  callId: string required\n  conversationId: string required\n\n"
    f"record AuditToolContext extends {AGENT}:ToolContext\n  callId: string required\n  actor: string required\n\n"
    "record ChatToolContext.Update update of ChatToolContext\n  callId: string\n  conversationId: string\n\n"
    "union ChatToolContext.Property property of ChatToolContext\n  case callId constant\n  case conversationId constant\n",
    links=(AGENT,),
)


def answer(body: str, name: str, types: list[dict[str, str]] | None = None, *, chat: bool = True) -> dict[str, Any]:
    links = (AGENT, CHAT) if chat else (AGENT,)
    modules = [main(body, links=links), agent_library()] + ([CHAT_LINK] if chat else [])
    listed = [TOOL_CONTEXT] if types is None else types
    return function_schema(program(*modules), {"name": name}, host_supplied_types=listed)


def within(found: dict[str, Any]) -> list[Any]:
    return [p.get("hostSuppliedWithin") for p in found["parameters"]]


def test_h1_h2_tool_context_left_out() -> None:
    body = f"function lookupOrder(orderId: string, context: {AGENT}:ToolContext): {AGENT}:HttpArguments =\n  <{AGENT}:HttpArguments />\n"
    found = answer(body, "lookupOrder", chat=False)
    assert list(found["inputSchema"]["properties"]) == ["orderId"]
    assert found["inputSchema"]["required"] == ["orderId"]
    assert dumps(found["parameters"][1]["hostSupplied"]) == dumps(TC)
    assert found["diagnostics"] == []
    arguments = found["outputSchema"]["$defs"]["HttpArguments"]
    body_schema = {k: v for k, v in arguments["properties"]["body"].items() if k != "description"}
    assert dumps(body_schema) == '{"not":{"type":"null"}}'
    assert "body" not in arguments.get("required", [])


def test_h3_without_the_option() -> None:
    body = f'function lookupOrder(orderId: string, context: {AGENT}:ToolContext): string =\n  "x"\n'
    found = answer(body, "lookupOrder", [], chat=False)
    assert "inputSchema" not in found
    assert any("ToolContext" in d["message"] for d in found["diagnostics"])
    assert "hostSupplied" not in found["parameters"][1]


def test_h4_a_declared_subtype_makes_it_an_ordinary_argument() -> None:
    body = (
        f"record MyContext extends {AGENT}:ToolContext\n  callId: string required\n  user: string required\n\n"
        f'function lookupOrder(orderId: string, context: {AGENT}:ToolContext): string =\n  "x"\n'
    )
    found = answer(body, "lookupOrder", [], chat=False)
    assert sorted(found["inputSchema"]["properties"]) == ["context", "orderId"]


def test_h5_a_subtype_is_host_supplied_as_the_listed_type() -> None:
    found = answer(f'function lookupOrder(orderId: string, context: {CHAT}:ChatToolContext): string =\n  "x"\n', "lookupOrder")
    assert list(found["inputSchema"]["properties"]) == ["orderId"]
    context = found["parameters"][1]
    assert dumps(context["hostSupplied"]) == dumps(TC)
    assert dumps(context["typeRef"]) == dumps(CHAT_TC)
    assert context["type"] == "ChatToolContext"


def test_h6_a_list_of_the_abstract_type() -> None:
    found = answer(f'function many(contexts: {AGENT}:ToolContext+): string =\n  "x"\n', "many", chat=False)
    assert "hostSupplied" not in found["parameters"][0]
    assert "inputSchema" not in found


def test_h7_a_list_holds_the_listed_type() -> None:
    found = answer(f'function many(orderId: string, contexts: {CHAT}:ChatToolContext+): string =\n  "x"\n', "many")
    assert "hostSupplied" not in found["parameters"][1]
    assert dumps(within(found)) == dumps([None, [TC]])
    assert found["inputSchema"]["required"] == ["orderId", "contexts"]
    assert found["inputSchema"]["properties"]["contexts"]["type"] == "array"
    assert found["diagnostics"] == []


REQUEST = f"record Request\n  orderId: string required\n  context: {CHAT}:ChatToolContext required\n"


def test_h8_records_hold_it() -> None:
    body = REQUEST + '\nrecord Batch\n  requests: Request+ required\n\nfunction send(request: Request, batch: Batch, note: string): string =\n  "x"\n'
    assert dumps(within(answer(body, "send"))) == dumps([[TC], [TC], None])


def test_h9_each_parameter_is_walked() -> None:
    body = f'record Request\n  context: {CHAT}:ChatToolContext required\n\nfunction both(first: Request, second: Request): string =\n  "x"\n'
    assert dumps(within(answer(body, "both"))) == dumps([[TC], [TC]])


def test_h10_nothing_held() -> None:
    body = "record Plan\n  name: string required\n  seats: int required\n\nfunction price(orderId: string, plan: Plan, plans?: Plan+): int =\n  1\n"
    found = answer(body, "price")
    assert dumps(within(found)) == dumps([None, None, None])


def test_h11_a_record_that_holds_itself() -> None:
    body = f'record Node\n  next: Node?\n  context: {CHAT}:ChatToolContext?\n\nfunction walk(node: Node): string =\n  "x"\n'
    assert dumps(within(answer(body, "walk"))) == dumps([[TC]])


def test_h12_union_case_and_alias() -> None:
    body = (
        f"union Target\n  case nobody constant\n  case chat\n    context: {CHAT}:ChatToolContext required\n\n"
        "alias Contexts\n\nrecord Page\n  items: object+ required\n\nrecord Plan\n  name: string required\n\n"
        f'function reach(target: Target, alias: {CHAT}:ChatToolContext+, page: Page, plans: Page): string =\n  "x"\n'
    )
    # `page` would hold the listed type through `<Page T=ChatToolContext />`: erased in an image.
    assert dumps(within(answer(body, "reach"))) == dumps([[TC], [TC], None, None])


def test_h13_aliases_resolved_in_the_image() -> None:
    body = (
        "alias Context\n\nalias Again\n\nalias Base\n\nrecord Order\n  id: string required\n\nalias OrderAlias\n\n"
        f"function lookup(orderId: string, context: {CHAT}:ChatToolContext, again: {CHAT}:ChatToolContext, "
        f'base: {AGENT}:ToolContext, order: Order): string =\n  "x"\n'
    )
    found = answer(body, "lookup")
    parameters = found["parameters"]
    for parameter in parameters[1:3]:
        assert dumps(parameter["hostSupplied"]) == dumps(TC)
        assert dumps(parameter["typeRef"]) == dumps(CHAT_TC)
        assert "hostSuppliedWithin" not in parameter
    assert dumps(parameters[3]["hostSupplied"]) == dumps(TC) and dumps(parameters[3]["typeRef"]) == dumps(TC)
    assert "hostSupplied" not in parameters[4]
    assert dumps(parameters[4]["typeRef"]) == '{"module":"main.nx","name":"Order"}'
    assert sorted(found["inputSchema"]["properties"]) == ["order", "orderId"]
    assert found["inputSchema"]["required"] == ["orderId", "order"]


def test_h14_lists_through_aliases() -> None:
    body = f'function many(contexts: {CHAT}:ChatToolContext+, names: string+): string =\n  "x"\n'
    found = answer(body, "many")
    assert all("hostSupplied" not in p and "typeRef" not in p for p in found["parameters"])
    assert dumps(within(found)) == dumps([[TC], None])


def test_h15_list_order_decides() -> None:
    body = (
        f"record SignalContext abstract extends {AGENT}:ToolContext\n  callId: string required\n  origin: string required\n\n"
        f"union Signal extends SignalContext, {AGENT}:ToolContext\n  case ping\n    callId: string required\n    origin: string required\n"
        "  case pong\n    callId: string required\n    origin: string required\n    n: int required\n\n"
        + REQUEST
        + f"\nfunction many(contexts: {CHAT}:ChatToolContext+, request: Request, audits: {CHAT}:AuditToolContext+, "
        f'signal: Signal, context: {CHAT}:ChatToolContext): string =\n  "x"\n'
    )
    signal = {"module": "main.nx", "name": "SignalContext"}
    found = answer(body, "many", [TC, CHAT_TC, signal])
    assert dumps(within(found)) == dumps([[TC, CHAT_TC], [TC, CHAT_TC], [TC], [TC, signal], None])
    reversed_list = answer(body, "many", [signal, CHAT_TC, TC])
    assert dumps(within(reversed_list)) == dumps([[CHAT_TC, TC], [CHAT_TC, TC], [TC], [signal, TC], None])
    assert dumps(reversed_list["parameters"][4]["hostSupplied"]) == dumps(CHAT_TC)
    repeated = answer(body, "many", [TC, CHAT_TC, TC, CHAT_TC])
    assert dumps(within(repeated)[0]) == dumps([TC, CHAT_TC])


def test_h16_derived_declarations_are_ordinary() -> None:
    body = (
        REQUEST
        + f"\nrecord Request.Update update of Request\n  orderId: string\n  context: {CHAT}:ChatToolContext\n\n"
        f"function patch(own: {CHAT}:ChatToolContext.Update, base: {AGENT}:ToolContext.Update, "
        f"property: {CHAT}:ChatToolContext.Property, "
        'holder: Request.Update): string =\n  "x"\n'
    )
    found = answer(body, "patch")
    assert all("hostSupplied" not in p for p in found["parameters"])
    assert dumps(within(found)) == dumps([None, None, None, [TC]])
    assert found["inputSchema"]["required"] == ["own", "base", "property", "holder"]


def test_h18_h19() -> None:
    found = answer(f'function any(contexts: {AGENT}:ToolContext+, audits: {CHAT}:AuditToolContext+): string =\n  "x"\n', "any")
    assert dumps(within(found)) == dumps([[TC], [TC]])
    body = f'function lookup(orderId: string, context: {CHAT}:ChatToolContext, base: {AGENT}:ToolContext): string =\n  "x"\n'
    found = answer(body, "lookup")
    assert [("hostSupplied" in p) for p in found["parameters"]] == [False, True, True]
    assert within(found) == [None, None, None]


def test_h20_any_listed_record() -> None:
    body = (
        "record A\n  a: string required\n\nrecord B\n  b: string required\n\n"
        "record Holder\n  first: A required\n  second: B required\n  again: A+ required\n\n"
        'function hold(holder: Holder, only: B+): string =\n  "x"\n'
    )
    a, b = {"module": "main.nx", "name": "A"}, {"module": "main.nx", "name": "B"}
    found = function_schema(program(main(body)), {"name": "hold"}, host_supplied_types=[b, {"name": "A"}])
    assert dumps(within(found)) == dumps([[b, a], [b]])


def test_h21_no_option() -> None:
    body = f'record Chat extends {AGENT}:ToolContext\n  callId: string required\n  id: string required\n\nfunction many(contexts: Chat+): string =\n  "x"\n'
    assert within(answer(body, "many", [], chat=False)) == [None]


def test_h22_listed_type_not_declared() -> None:
    found = function_schema(program(main("function add(a: int, b: int): int =\n  (a add b)\n")), {"name": "add"}, host_supplied_types=[TOOL_CONTEXT])
    assert found["diagnostics"] == [] and found["inputSchema"]["required"] == ["a", "b"]


def test_h23_tool_result() -> None:
    body = f'function pick(): {AGENT}:Tool =\n  <{AGENT}:WebSearchTool name="search" />\n'
    found = answer(body, "pick", chat=False)
    assert "outputSchema" not in found
    messages = [d["message"] for d in found["diagnostics"]]
    assert len(messages) == 2
    assert any("`FunctionTool.function`" in m for m in messages) and any("`HttpTool.arguments`" in m for m in messages)
