"""`nx-agent serve` logs what a client sends without letting it write lines of its own (issue 15).

The server runs over stdio as a subprocess and is spoken to in raw JSON-RPC (the handshake of
protocol 2025-06-18, then ``tools/call``), so that the request id can be any string: one holding a
newline and what would look like a log line of the server's own. Its stderr must hold no line the
client wrote: every line is a record of the server's (``nx-agent: ``), and the forged text appears
only inside the record of the call, escaped.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_support import serve_args, server_env, write_support_agent

FORGED = 'nx-agent: call "forged" of "find_plans": ok, usage {}'


def exchange(process: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    if "id" not in message:
        return None
    answer: dict[str, Any] = json.loads(process.stdout.readline())
    return answer


def test_a_newline_in_a_request_id_cannot_forge_a_log_line(tmp_path: Path) -> None:
    definition, images, _ = write_support_agent(tmp_path)
    process = subprocess.Popen(
        [sys.executable, *serve_args(definition, images, None)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**server_env(), "NX_AGENT_TOKEN_SHOP": "tok"},
    )
    try:
        initialized = exchange(process, {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        })
        assert initialized is not None and "result" in initialized, initialized
        exchange(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for request_id, arguments in [(f"7\n{FORGED}", {"teamSize": 5}), (f"8\r\n{FORGED}\u2028x", {"teamSize": "five"})]:
            answer = exchange(process, {
                "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                "params": {"name": "find_plans", "arguments": arguments},
            })
            assert answer is not None and answer["id"] == request_id and "result" in answer, answer
        # Closing stdin (communicate does) ends the server.
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = err.splitlines()
    calls = [line for line in lines if line.startswith("nx-agent: call ")]
    assert len(calls) == 2, err
    assert all(line.startswith("nx-agent: ") for line in lines), err
    assert not any(line.startswith(FORGED) or line.startswith("nx-agent: call \"forged\"") for line in lines), err
    # The id is there, escaped, inside the record of its call.
    assert "\\nnx-agent: call" in calls[0] and "\\r\\nnx-agent" in calls[1] and "\\u2028" in calls[1]
