"""`brief serve --http` under 8 concurrent MCP clients (the official Python SDK).

Usage: python mcp_http.py BRIEF ROOT [CLIENTS] [CALLS_PER_CLIENT]

Each client opens its own session and makes sequential `context` calls (depth 2, budget
8000) over targets taken from the node index; every answer must be a successful tool result.
Prints calls, errors, wall time, throughput and per-call latency percentiles as seen by the
clients (SDK overhead included).
"""

import asyncio
import statistics
import subprocess
import sys
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

BRIEF, ROOT = sys.argv[1], sys.argv[2]
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
CALLS = int(sys.argv[4]) if len(sys.argv) > 4 else 200


async def client(url, n, targets, latencies, errors):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for i in range(CALLS):
                target = targets[(n * 7 + i) % len(targets)]
                started = time.perf_counter()
                try:
                    result = await session.call_tool(
                        "context", {"target": target, "depth": 2, "budget": 8000})
                    if result.is_error:
                        errors.append(f"client {n} call {i}: {result.content[0].text}")
                except Exception as error:  # a transport or protocol failure
                    errors.append(f"client {n} call {i}: {error!r}")
                latencies.append(time.perf_counter() - started)


async def main():
    server = subprocess.Popen([BRIEF, "serve", "--http", "127.0.0.1:0", "--root", ROOT],
                              stderr=subprocess.PIPE, text=True)
    try:
        url = server.stderr.readline().strip().split("listening on ")[-1]
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                ids, uri = [], "brief://nodes"
                while uri:  # the index comes in pages, each naming the next
                    page = await session.read_resource(uri)
                    uri = None
                    for line in page.contents[0].text.splitlines():
                        first, _, rest = line.partition("\t")
                        if first == "next":
                            uri = rest
                        else:
                            ids.append(first)
                targets = ids[:: max(1, len(ids) // 100)][:100]
                for target in targets:  # warm the index and the token-count cache
                    await session.call_tool("context", {"target": target, "depth": 2, "budget": 8000})
        latencies, errors = [], []
        started = time.perf_counter()
        await asyncio.gather(*(client(url, n, targets, latencies, errors) for n in range(CLIENTS)))
        wall = time.perf_counter() - started
        latencies.sort()
        pct = lambda p: latencies[round((len(latencies) - 1) * p)] * 1000
        print(f"mcp http context: {CLIENTS} concurrent clients x {CALLS} calls = {len(latencies)} calls, "
              f"{len(errors)} errors, {wall:.2f} s, {len(latencies) / wall:.0f} calls/s, "
              f"median {statistics.median(latencies) * 1000:.2f} ms, p90 {pct(0.9):.2f} ms, "
              f"p99 {pct(0.99):.2f} ms, max {latencies[-1] * 1000:.2f} ms")
        for error in errors[:10]:
            print("  ", error)
        alive = server.poll() is None
        print("server still running" if alive else "SERVER EXITED")
        return 0 if not errors and alive else 1
    finally:
        server.terminate()
        server.wait(timeout=10)


sys.exit(asyncio.run(main()))
