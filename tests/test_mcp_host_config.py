"""The host configuration of `nx-agent serve` (`nx_agent.mcp.host_config`), the command's errors, and
a host context served over stdio to the corpus `agent-tool-context` program's tools.

Expected values: the configuration rules are the ones `nx_agent.mcp.host_config` documents;
`who_am_i` answers the context's `conversationId` and `call_id_of` the call's id (the corpus
sources: `whoAmI(context) = context.conversationId`, `callIdOf(context) = context.callId`,
`seatCount(teamSize) = teamSize`); §7 gives the sentence for a missing context.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from corpus_agents import compile_context_agent, needs_context
from mcp import Client, StdioServerParameters
from mcp_support import serve_args, server_env, write_agent, write_config, write_support_agent
from nx_agent.http.connections import RoutedRequest
from nx_agent.mcp import HostConfigError, load_host_config, read_host_config


def test_defaults_read_tokens_from_the_conventional_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NX_AGENT_HOST_CONFIG", raising=False)
    monkeypatch.setenv("NX_AGENT_TOKEN_SHOP_EU", "tok-eu")
    config = load_host_config()
    assert config.context is None and config.limits == {} and config.timeout == 10.0
    assert config.token_for("shop-eu") == "tok-eu"
    assert config.token_for("billing") is None
    assert re.fullmatch(r"[0-9a-f]{8}", config.call_id_prefix)


def test_a_configuration_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "billing-token"
    secret.write_text("tok-billing\n", encoding="utf-8")
    monkeypatch.setenv("SHOP_API_TOKEN", "tok-shop")
    document = {
        "context": {"$type": "ChatToolContext", "conversationId": "conv_9"},
        "connections": {
            "shop": {"tokenEnv": "SHOP_API_TOKEN", "baseUrl": "https://staging.example.com/api/"},
            "billing": {"tokenFile": str(secret)},
            "local": {"baseUrl": "http://127.0.0.1:8080", "allowInsecure": True},
        },
        "limits": {"maxOperations": 500, "maxContextSize": 2000},
        "timeout": 2.5,
        "callIdPrefix": "svc-a",
    }
    monkeypatch.setenv("NX_AGENT_HOST_CONFIG", str(write_config(tmp_path, "host.json", document)))
    config = load_host_config()
    assert config.context == document["context"]
    assert (config.token_for("shop"), config.token_for("billing"), config.token_for("local")) == ("tok-shop", "tok-billing", None)
    assert config.connections["shop"].base_url == "https://staging.example.com/api"
    assert config.connections["local"].base_url == "http://127.0.0.1:8080"
    assert config.limits == {"max_operations": 500, "max_context_size": 2000}
    assert (config.timeout, config.call_id_prefix) == (2.5, "svc-a")


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ([], "must be a JSON object"),
        ({"contexts": {}}, "unknown key 'contexts'"),
        ({"context": {"conversationId": "c"}}, "context must be an object with a string '$type'"),
        ({"connections": {"shop": {"baseUrl": "http://127.0.0.1:1"}}}, "is not https"),
        ({"connections": {"shop": {"baseUrl": "https://x.example/?q=1"}}}, "no query, fragment or credentials"),
        ({"connections": {"shop": {"baseUrl": "not a url"}}}, "is not an absolute URL"),
        ({"connections": {"shop": {"tokenEnv": "NX_TEST_UNSET_VARIABLE"}}}, "NX_TEST_UNSET_VARIABLE is not set"),
        ({"connections": {"shop": {"token": "inline"}}}, "unknown key 'token'"),
        ({"limits": {"maxOperations": -1}}, "must be a non-negative integer"),
        ({"limits": {"maxSteps": 3}}, "unknown limit 'maxSteps'"),
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"callIdPrefix": ""}, "callIdPrefix must be a non-empty string"),
        ({"limits": {"maxCallsPerConversation": 1.5}}, "must be a non-negative integer"),
        ({"limits": {"maxMemory": -1}}, "limit maxMemory must be a non-negative integer"),
        ({"limits": {"maxMemory": 1.5}}, "limit maxMemory must be a non-negative integer"),
        ({"limits": {"maxMemory": "1048576"}}, "limit maxMemory must be a non-negative integer"),
        ({"limits": {"maxMemory": True}}, "limit maxMemory must be a non-negative integer"),
        ({"http": []}, "http: must be an object"),
        ({"http": {"maxConnection": 3}}, "http: unknown key 'maxConnection'"),
        ({"http": {"headerTimeout": 0}}, "http: headerTimeout must be a positive number of seconds"),
        ({"http": {"bodyTimeout": True}}, "http: bodyTimeout must be a positive number of seconds"),
        ({"http": {"maxSessions": 0}}, "http: maxSessions must be a positive integer"),
        ({"http": {"tokenEnv": "NX_TEST_UNSET_VARIABLE"}}, "http: the environment variable NX_TEST_UNSET_VARIABLE is not set"),
        ({"http": {"tokenEnv": "A", "tokenFile": "b"}}, "http: give tokenEnv or tokenFile, not both"),
    ],
)
def test_a_configuration_that_cannot_be_used(document: Any, says: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NX_TEST_UNSET_VARIABLE", raising=False)
    with pytest.raises(HostConfigError) as raised:
        read_host_config(document, "host.json")
    assert says in str(raised.value) and raised.value.code == "nx-agent-host-config"


def test_the_http_object_and_its_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nx_agent.mcp.http_settings import HttpSettings

    monkeypatch.delenv("NX_AGENT_SERVE_TOKEN", raising=False)
    defaults = read_host_config({}).http
    assert defaults == HttpSettings()
    assert (defaults.header_timeout, defaults.body_timeout, defaults.max_connections, defaults.max_sessions,
            defaults.session_idle_timeout, defaults.max_request_body_size) == (10.0, 30.0, 128, 64, 600.0, 1_048_576)
    assert defaults.bearer_token() is None
    monkeypatch.setenv("NX_AGENT_SERVE_TOKEN", "from-the-variable")
    assert defaults.bearer_token() == "from-the-variable"
    token_file = tmp_path / "serve-token"
    token_file.write_text("from-the-file\n", encoding="utf-8")
    read = read_host_config({"http": {"tokenFile": str(token_file), "headerTimeout": 2, "maxConnections": 8,
                                      "maxSessions": 4, "sessionIdleTimeout": 60, "maxRequestBodySize": 4096,
                                      "bodyTimeout": 5.5}}).http
    assert read == HttpSettings(header_timeout=2.0, body_timeout=5.5, max_connections=8, max_sessions=4,
                                session_idle_timeout=60.0, max_request_body_size=4096, token="from-the-file")
    assert read.bearer_token() == "from-the-file"
    assert read_host_config({"limits": {"maxCallsPerConversation": 3}}).limits == {"max_calls_per_conversation": 3}


def test_a_routed_request_keeps_the_path_and_refuses_what_is_not_under_the_base() -> None:
    sent: list[dict[str, Any]] = []

    async def inner(call: dict[str, Any]) -> dict[str, Any]:
        sent.append(call)
        return {"status": 200}

    routed = RoutedRequest(inner, {"shop": ("https://api.example.com/v1", "http://127.0.0.1:9")})
    call = {"connection": "shop", "request": {"method": "GET", "url": "https://api.example.com/v1/orders/A%201?x=1", "headers": {}}}
    assert anyio.run(routed, call) == {"status": 200}
    assert sent[0]["request"]["url"] == "http://127.0.0.1:9/orders/A%201?x=1"
    assert call["request"]["url"] == "https://api.example.com/v1/orders/A%201?x=1"  # the call handed in is not changed
    other = {"connection": "shop", "request": {"method": "GET", "url": "https://api.example.com/v10/x", "headers": {}}}
    with pytest.raises(Exception) as raised:
        anyio.run(routed, other)
    assert getattr(raised.value, "code", None) == "request-failed" and len(sent) == 1


def serve_fails(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "nx_agent", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env or server_env(),
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stderr


def test_serve_reports_bad_input_without_a_traceback(tmp_path: Path) -> None:
    definition, images, _ = write_support_agent(tmp_path)
    code, err = serve_fails(str(tmp_path / "missing.json"), *map(str, images))
    assert code == 3 and "missing.json" in err and "Traceback" not in err
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    code, err = serve_fails(str(broken), *map(str, images))
    assert code == 3 and f"{broken}: not JSON" in err and "Traceback" not in err
    config = write_config(tmp_path, "host.json", {"connections": {"billing": {}}})
    code, err = serve_fails(str(definition), *map(str, images), "--host-config", str(config))
    assert code == 3 and "connection 'billing' is not one of the definition's (shop)" in err
    assert "[nx-agent-host-config]" in err and "Traceback" not in err


@needs_context
def test_the_host_context_reaches_the_tools_over_stdio(tmp_path: Path) -> None:
    definition, images = write_agent(tmp_path, compile_context_agent())
    with_context = write_config(
        tmp_path, "host.json", {"context": {"$type": "ChatToolContext", "conversationId": "conv_9"}, "callIdPrefix": "run1"}
    )

    async def scenario(config: Path | None) -> list[Any]:
        params = StdioServerParameters(command=sys.executable, args=serve_args(definition, images, config), env=server_env())
        async with Client(params) as client:
            answers = []
            for name, arguments in (("who_am_i", {}), ("call_id_of", {}), ("seat_count", {"teamSize": 4})):
                result = await client.call_tool(name, arguments)
                answers.append(result.structured_content if not result.is_error else result.content[0].text)  # type: ignore[union-attr]
            return answers

    who, call_id, seats = anyio.run(scenario, with_context)
    assert who == "conv_9" and seats == 4
    assert re.fullmatch(r"run1:2:\d+", call_id), call_id
    # With no context configured, a tool that needs one is not available (§7), and one that does not still runs.
    who, _, seats = anyio.run(scenario, None)
    assert who == "NxAgentToolError: Tool 'who_am_i' is not available for this call." and seats == 4


def test_serve_runs_every_call_under_the_configurations_memory_ceiling(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # `grow` (tests/test_memory_limit.py) builds 2^22 bytes of text: past a 1 MiB ceiling, the call
    # is a failed result (`resource-limit`, limit `memory`) the server answers and logs.
    from nx_agent.mcp.command import build_server
    from test_memory_limit import GROW_DEFINITION, ONE_MIB, PAST, UNDER, grow_images

    definition = write_config(tmp_path, "agent.json", GROW_DEFINITION)
    image = tmp_path / "grow.nxir"
    image.write_bytes(grow_images()["grow.nx"])
    config = read_host_config({"limits": {"maxMemory": ONE_MIB}})
    assert config.limits == {"max_memory": ONE_MIB}
    server = build_server(str(definition), [str(image)], config, "grow.nx")
    direct = server.tools["grow"].execute(PAST, call_id="c0")  # type: ignore[attr-defined]
    assert direct["error"]["code"] == "resource-limit" and direct["error"]["limit"] == {"name": "memory", "value": ONE_MIB}

    async def scenario() -> list[Any]:
        async with Client(server.server) as client:
            return [await client.call_tool("grow", arguments) for arguments in (PAST, UNDER)]

    with caplog.at_level("INFO", logger="nx_agent.mcp"):
        past, under = anyio.run(scenario)
    assert past.is_error is True and under.is_error is False
    assert under.content[0].text == json.dumps("x" * 1024)  # type: ignore[union-attr]
    failed = [record.getMessage() for record in caplog.records if "failed" in record.getMessage()]
    assert len(failed) == 1
    logged = json.loads(failed[0].split("failed: ", 1)[1])
    assert logged["code"] == "resource-limit" and logged["limit"] == {"name": "memory", "value": ONE_MIB}
    # Without maxMemory the runtime's default (256 MiB) holds: the same call succeeds (given the
    # operations 4 MiB of doubling takes).
    roomy = build_server(str(definition), [str(image)], read_host_config({"limits": {"maxOperations": 10**7}}), "grow.nx")
    assert roomy.tools["grow"].execute(PAST, call_id="c1")["ok"] is True  # type: ignore[attr-defined]
