"""The README's OpenAI Agents SDK example (run by test_readme_adapters with a scripted model)."""

from typing import Any

from agents import Agent, Runner, WebSearchTool

from nx_agent import compile_agent, examples, load_agent
from nx_agent.openai_agents import to_function_tools


def shop(call: dict[str, Any]) -> dict[str, Any]:
    """Makes the request an http tool built (here: answers it locally)."""
    return {"status": 200, "body": {"state": "shipped"}}


async def ask(question: str, model: Any = "gpt-4.1") -> str:
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    support = load_agent(compiled.definition_text, compiled.images, request=shop)
    tools = to_function_tools(
        support,
        on_result=lambda event: print(event["name"], event["call_id"], event["result"]),
        provider_tool=lambda tool: WebSearchTool(),
    )
    agent = Agent(
        name=compiled.definition["name"],
        instructions=compiled.definition["instructions"],
        tools=tools,
        model=model,
    )
    result = await Runner.run(agent, question)
    return str(result.final_output)
