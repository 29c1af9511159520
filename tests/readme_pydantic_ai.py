"""The README's pydantic-ai example (run by test_readme_adapters with a FunctionModel)."""

from typing import Any

from pydantic_ai import Agent
from pydantic_ai.native_tools import WebSearchTool

from nx_agent import compile_agent, examples, load_agent
from nx_agent.pydantic_ai import to_capability


def shop(call: dict[str, Any]) -> dict[str, Any]:
    """Makes the request an http tool built (here: answers it locally)."""
    return {"status": 200, "body": {"state": "shipped"}}


async def ask(question: str, model: Any = "openai:gpt-4.1") -> str:
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    support = load_agent(compiled.definition_text, compiled.images, request=shop)
    tools = to_capability(
        support,
        on_result=lambda event: print(event["name"], event["call_id"], event["result"]),
        provider_tool=lambda tool: WebSearchTool(allowed_domains=tool["config"]["allowedDomains"]),
    )
    agent = Agent(model, instructions=compiled.definition["instructions"], capabilities=[tools])
    result = await agent.run(question)
    return result.output
