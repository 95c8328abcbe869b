"""Drives `brief serve` with the official MCP Python SDK and checks it against the CLI.

Usage: client.py BRIEF ROOT stdio|http

Every tool call is compared with what the `brief` binary prints for the same arguments; bad
calls must come back as tool errors and the server must keep answering afterwards. Exits 1
with a list of failures, 0 when everything held.
"""

import asyncio
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

BRIEF, ROOT, TRANSPORT = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
# One clock for the server and the CLI: session listings carry a recency score.
NOW = "1795000000"
os.environ["BRIEF_NOW"] = NOW


def expect(condition, what):
    if not condition:
        failures.append(what)


def cli(*args):
    """The CLI's stdout, stderr and exit code for the same request."""
    done = subprocess.run([BRIEF, *args, "--root", ROOT], capture_output=True, text=True)
    return done.stdout, done.stderr, done.returncode


def text_of(result):
    return [block.text for block in result.content if getattr(block, "type", "") == "text"]


# (tool, arguments, the CLI command giving the same bytes)
SAME_AS_CLI = [
    ("context", {"target": "CHECKOUT-01"}, ["context", "CHECKOUT-01"]),
    (
        "context",
        {"target": "CHECKOUT-01", "budget": 1200, "format": "json", "depth": "full"},
        ["context", "CHECKOUT-01", "--budget", "1200", "--format", "json", "--depth", "full"],
    ),
    (
        "context",
        {"target": "CHECKOUT-01", "depth": 1, "detail": "summary", "format": "text",
         "encoding": "o200k", "no_identity": True},
        ["context", "CHECKOUT-01", "--depth", "1", "--detail", "summary", "--format", "text",
         "--encoding", "o200k", "--no-identity"],
    ),
    ("context", {"target": "card payment retries", "seeds": 2},
     ["context", "card payment retries", "--seeds", "2"]),
    ("context", {"target": "CHECKOUT-01", "lens": "planning"},
     ["context", "CHECKOUT-01", "--lens", "planning"]),
    ("search", {"query": "payment"}, ["search", "payment"]),
    ("search", {"query": "refund", "limit": 3, "format": "json"},
     ["search", "refund", "--limit", "3", "--format", "json"]),
    ("show", {"id": "CHECKOUT-01", "detail": "summary"}, ["show", "CHECKOUT-01", "--detail", "summary"]),
    ("show", {"id": "CHECKOUT-01", "format": "json"}, ["show", "CHECKOUT-01", "--format", "json"]),
    ("check", {}, ["check"]),
    ("check", {"format": "json", "rules": ["broken-link"]},
     ["check", "--format", "json", "--rule", "broken-link"]),
    ("lenses", {}, ["lenses"]),
    ("impact", {"ids": ["POL-CHK-01"]}, ["impact", "POL-CHK-01"]),
    ("explain", {"id": "POL-CHK-01", "for": "CHECKOUT-01"},
     ["explain", "POL-CHK-01", "--for", "CHECKOUT-01"]),
]

# (tool, arguments, what the error text must contain, the CLI command failing the same way:
# the same text, but for the flags it names, which a tool error calls by their parameter names)
FLAG_PARAMETERS = {"--budget": "budget"}

TOOL_ERRORS = [
    ("context", {"target": "NOPE-404"}, "NOPE-404", ["context", "NOPE-404"]),
    ("context", {"target": "CHECKOUT-01", "budget": 5}, "(use budget ", ["context", "CHECKOUT-01", "--budget", "5"]),
    ("context", {"target": "CHECKOUT-01", "detail": "huge"}, "invalid arguments", None),
    ("context", {"target": "CHECKOUT-01", "depth": "deep"}, "invalid depth", None),
    ("context", {"budget": 100}, "target", None),
    ("context", {"target": "CHECKOUT-01", "colour": "red"}, "unknown parameter `colour`", None),
    ("context", {"target": "CHECKOUT-01", "lens": "nonexistent"}, "nonexistent", None),
    ("show", {"id": "NOPE-404"}, "NOPE-404", ["show", "NOPE-404"]),
    ("check", {"baseline": "../../etc/passwd"}, "outside the project", None),
]


async def exercise(session):
    await session.initialize()
    tools = await session.list_tools()
    names = sorted(tool.name for tool in tools.tools)
    expect(names == ["check", "context", "diff", "explain", "impact", "lenses", "search",
                     "session_error_feedback",
                     "session_error_match", "session_error_record", "session_package_add",
                     "session_package_consume", "session_package_list", "show"],
           f"tools listed: {names}")
    for tool in tools.tools:
        expect(tool.input_schema.get("type") == "object", f"{tool.name}: schema is not an object")
        expect(bool(tool.description), f"{tool.name}: no description")
    context_schema = next(t for t in tools.tools if t.name == "context").input_schema
    expect("target" in context_schema.get("required", []), "context: target is not required")
    for key in ["depth", "detail", "budget", "encoding", "lens", "format", "seeds", "include_fields"]:
        expect(key in context_schema.get("properties", {}), f"context schema lacks {key}")

    for tool, arguments, command in SAME_AS_CLI:
        result = await session.call_tool(tool, arguments)
        stdout, _, code = cli(*command)
        texts = text_of(result)
        expect(not result.is_error, f"{tool} {arguments}: tool error {texts}")
        expect(code == 0, f"CLI {command} exited {code}")
        expect(texts and texts[0] == stdout,
               f"{tool} {arguments}: differs from `brief {' '.join(command)}`")

    for tool, arguments, needle, command in TOOL_ERRORS:
        result = await session.call_tool(tool, arguments)
        message = "".join(text_of(result))
        expect(result.is_error, f"{tool} {arguments}: not a tool error")
        expect(needle in message, f"{tool} {arguments}: error {message!r} lacks {needle!r}")
        if command:
            _, stderr, code = cli(*command)
            expect(code != 0, f"CLI {command} succeeded")
            for flag, parameter in FLAG_PARAMETERS.items():
                expect(flag not in message, f"{tool} {arguments}: {message!r} names the flag {flag}")
                stderr = stderr.replace(flag + " ", parameter + " ")
            expect(message == stderr, f"{tool} {arguments}: {message!r} != CLI stderr {stderr!r}")
        # The server still answers after every bad call.
        after = await session.call_tool("show", {"id": "CHECKOUT-01", "detail": "meta"})
        expect(not after.is_error, f"no answer after {tool} {arguments}")

    # Finding nothing is an answer, with the CLI's note as a second block.
    empty = await session.call_tool("search", {"query": "zzqxjv"})
    expect(not empty.is_error, f"a search without hits is a tool error: {text_of(empty)}")
    expect("no match" in "".join(text_of(empty)), f"no note for an empty search: {text_of(empty)}")

    # A session tool through the SDK: a package handed over, then listed for its consumer
    # (its file written first: a package names a file that exists).
    os.makedirs(os.path.join(ROOT, "notes"), exist_ok=True)
    with open(os.path.join(ROOT, "notes", "handoff.md"), "w") as handoff:
        handoff.write("# Handoff\n")
    added = await session.call_tool("session_package_add", {
        "session": "sdk", "type": "handoff", "file": "notes/handoff.md", "producer": "developer",
        "consumers": ["qa_expert"], "priority": "high", "summary": "Retry path ready for QA"})
    expect(not added.is_error, f"session_package_add: {text_of(added)}")
    listed = await session.call_tool("session_package_list", {"session": "sdk", "agent": "qa_expert"})
    expect(not listed.is_error and "Retry path ready for QA" in text_of(listed)[0],
           f"session_package_list: {text_of(listed)}")
    stdout, _, _ = cli("session", "package", "list", "--session", "sdk", "--agent", "qa_expert")
    expect(text_of(listed)[0] == stdout, "session_package_list differs from the CLI")

    try:
        await session.call_tool("no-such-tool", {})
        expect(False, "an unknown tool was accepted")
    except Exception as error:  # the SDK raises on a JSON-RPC error
        expect("no-such-tool" in str(error), f"unknown tool error: {error}")

    resources = await session.list_resources()
    uris = sorted(str(r.uri) for r in resources.resources)
    expect("brief://nodes" in uris, f"resources: {uris}")
    nodes = await session.read_resource("brief://nodes")
    listing = nodes.contents[0].text
    expect("CHECKOUT-01\tbehavior\tCard payment authorization\n" in listing, "node index lacks CHECKOUT-01")
    expect(listing.splitlines() == sorted(listing.splitlines()), "node index not sorted")
    one = await session.read_resource("brief://node/CHECKOUT-01")
    expect(one.contents[0].text == cli("show", "CHECKOUT-01")[0], "brief://node/ differs from show")
    templates = await session.list_resource_templates()
    expect(any("brief://node/" in t.uri_template for t in templates.resource_templates), "no node template")

    prompts = await session.list_prompts()
    expect([p.name for p in prompts.prompts] == ["brief-before-task"], "prompt missing")
    prompt = await session.get_prompt("brief-before-task", {"target": "CHECKOUT-01"})
    words = prompt.messages[0].content.text
    expect("`context`" in words and "CHECKOUT-01" in words, f"prompt text: {words}")


async def over_stdio():
    params = StdioServerParameters(command=BRIEF, args=["serve", "--root", ROOT],
                                   env={"BRIEF_NOW": NOW})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session)


def raw_post(url, body, origin=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if origin:
        headers["Origin"] = origin
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


async def concurrent_clients(url, clients=8, calls=10):
    async def one(n):
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for _ in range(calls):
                    result = await session.call_tool("context", {"target": "CHECKOUT-01", "budget": 1500 + n})
                    expect(not result.is_error, f"client {n}: {text_of(result)}")
    await asyncio.gather(*(one(n) for n in range(clients)))


async def over_http():
    server = subprocess.Popen([BRIEF, "serve", "--http", "127.0.0.1:0", "--root", ROOT],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        expect("listening on" in line, f"server said {line!r}")
        url = line.strip().split("listening on ")[-1]
        # Malformed requests first: garbage, a non-object, a foreign origin.
        expect(raw_post(url, b"{not json") in (400, 415, 422), "garbage was not refused")
        expect(raw_post(url, b"[1, 2") in (400, 415, 422), "broken array was not refused")
        hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"}}}).encode()
        expect(raw_post(url, hello, origin="http://evil.example") == 403, "foreign Origin was not refused")
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session)
        await concurrent_clients(url)
        expect(server.poll() is None, "the server exited")
    finally:
        server.terminate()
        server.wait(timeout=10)


asyncio.run(over_stdio() if TRANSPORT == "stdio" else over_http())
if failures:
    print(f"{len(failures)} failure(s):")
    for failure in failures:
        print(" -", failure)
    sys.exit(1)
print(f"ok: {TRANSPORT}")
