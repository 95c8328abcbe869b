// Drives `brief serve` with the official MCP TypeScript SDK (the client Claude Code, Cursor
// and VS Code are built on) and checks every tool schema with ajv in strict mode.
//
// Usage: node client.mjs BRIEF ROOT stdio|http|roots|bench [CALLS] [CLIENTS] [PER_CLIENT]
//
// stdio, http: every tool call is compared with what the `brief` binary prints for the same
// arguments; schemas compile in strict ajv (draft-07 and 2020-12) and accept the arguments
// sent, refuse the invalid ones; structured content is validated by the SDK against each
// tool's output schema; empty results are results; completions; cancellation.
// roots: a server started where there is no project finds ROOT from the client's roots.
// bench: sequential `context` calls over HTTP (median), then concurrent clients.
// Prints "N passed, M failed" and exits 1 on any failure.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";

const [BRIEF, ROOT, MODE] = process.argv.slice(2);
const NOW = "1795000000";
process.env.BRIEF_NOW = NOW;
let passed = 0;
const failures = [];

function expect(condition, what) {
  if (condition) passed += 1;
  else failures.push(what);
}

function cli(...args) {
  try {
    const stdout = execFileSync(BRIEF, [...args, "--root", ROOT], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, BRIEF_NOW: NOW },
    });
    return { stdout, code: 0 };
  } catch (error) {
    return { stdout: error.stdout ?? "", stderr: error.stderr ?? "", code: error.status };
  }
}

const texts = (result) => (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text);

// (tool, arguments, the CLI command giving the same bytes)
const SAME_AS_CLI = [
  ["context", { target: "CHECKOUT-01" }, ["context", "CHECKOUT-01"]],
  ["context", { target: "CHECKOUT-01", budget: 1200, format: "json", depth: "full" },
    ["context", "CHECKOUT-01", "--budget", "1200", "--format", "json", "--depth", "full"]],
  ["context", { target: "CHECKOUT-01", depth: 1, detail: "summary", format: "text", encoding: "o200k", no_identity: true },
    ["context", "CHECKOUT-01", "-d", "1", "-D", "summary", "-f", "text", "-e", "o200k", "--no-identity"]],
  ["context", { target: "card payment retries", seeds: 2 }, ["context", "card payment retries", "--seeds", "2"]],
  ["search", { query: "refund", limit: 3, format: "json" }, ["search", "refund", "-l", "3", "-f", "json"]],
  ["show", { id: "CHECKOUT-01", detail: "summary" }, ["show", "CHECKOUT-01", "-D", "summary"]],
  ["check", { format: "json", rules: ["broken-link"] }, ["check", "-f", "json", "--rule", "broken-link"]],
  ["lenses", {}, ["lenses"]],
  ["impact", { ids: ["POL-CHK-01"], depth: 1 }, ["impact", "POL-CHK-01", "-d", "1"]],
  ["explain", { id: "POL-CHK-01", for: "CHECKOUT-01", budget: 900 }, ["explain", "POL-CHK-01", "--for", "CHECKOUT-01", "-b", "900"]],
];

// Arguments a schema must refuse (and the server too).
const INVALID = [
  ["context", { target: "" }],
  ["context", { target: "CHECKOUT-01", budget: 0 }],
  ["context", { target: "CHECKOUT-01", seeds: 0 }],
  ["context", { target: "CHECKOUT-01", depth: "deep" }],
  ["context", { target: "CHECKOUT-01", detail: "everything" }],
  ["context", { target: "CHECKOUT-01", colour: "red" }],
  ["context", { budget: 100 }],
  ["search", { query: "refund", limit: 0 }],
  ["impact", { ids: ["X"], budget: 100 }],
];

function strictValidators(tools) {
  const compilers = [new Ajv({ strict: true }), new Ajv2020({ strict: true })];
  const byName = {};
  for (const tool of tools) {
    for (const [which, ajv] of compilers.entries()) {
      for (const [kind, schema] of [["input", tool.inputSchema], ["output", tool.outputSchema]]) {
        try {
          const validate = ajv.compile(schema);
          if (which === 0 && kind === "input") byName[tool.name] = validate;
        } catch (error) {
          expect(false, `${tool.name}: the ${kind} schema does not compile in strict ajv (${which ? "2020-12" : "draft-07"}): ${error.message}`);
        }
      }
    }
    expect(typeof tool.title === "string" && tool.title.length > 0, `${tool.name}: no title`);
    expect(tool.annotations && typeof tool.annotations.readOnlyHint === "boolean", `${tool.name}: no annotations`);
  }
  return byName;
}

async function exercise(client) {
  const { tools } = await client.listTools();
  expect(tools.length === 14, `tools listed: ${tools.map((t) => t.name)}`);
  const validators = strictValidators(tools);

  for (const [tool, args, command] of SAME_AS_CLI) {
    expect(validators[tool]?.(args), `${tool} ${JSON.stringify(args)}: refused by its own schema`);
    const result = await client.callTool({ name: tool, arguments: args });
    const { stdout, code } = cli(...command);
    expect(!result.isError, `${tool} ${JSON.stringify(args)}: tool error ${texts(result)}`);
    expect(code === 0 || tool === "check", `CLI ${command} exited ${code}`);
    expect(texts(result)[0] === stdout, `${tool} ${JSON.stringify(args)}: differs from brief ${command.join(" ")}`);
    expect(result.structuredContent?.text === stdout, `${tool}: structured content's text differs`);
    if (args.format === "json") {
      expect(typeof result.structuredContent?.json === "object", `${tool}: no parsed json`);
    }
  }
  for (const [tool, args] of INVALID) {
    expect(!validators[tool](args), `${tool} ${JSON.stringify(args)}: accepted by the schema`);
    const result = await client.callTool({ name: tool, arguments: args });
    expect(result.isError, `${tool} ${JSON.stringify(args)}: accepted by the server`);
  }
  // Nothing found is an answer.
  const empty = await client.callTool({ name: "search", arguments: { query: "zzqxjv" } });
  expect(!empty.isError && texts(empty).join("").includes("no match"), `empty search: ${JSON.stringify(empty)}`);
  const none = await client.callTool({ name: "session_package_list", arguments: { session: "ts", agent: "developer" } });
  expect(!none.isError, `empty package list: ${texts(none)}`);

  // Completions for the prompt's target and the node template's id.
  const prompt = await client.complete({ ref: { type: "ref/prompt", name: "brief-before-task" }, argument: { name: "target", value: "checkout-0" } });
  expect(prompt.completion.values.includes("CHECKOUT-01"), `prompt completion: ${prompt.completion.values}`);
  const node = await client.complete({ ref: { type: "ref/resource", uri: "brief://node/{id}" }, argument: { name: "id", value: "POL" } });
  expect(node.completion.values.length > 0 && node.completion.values.every((v) => v.startsWith("POL")), `node completion: ${node.completion.values}`);

  // A cancelled call: the SDK sends notifications/cancelled; the server goes on serving.
  const controller = new AbortController();
  const cancelled = client.callTool({ name: "check", arguments: {} }, undefined, { signal: controller.signal });
  controller.abort("the user gave up");
  await cancelled.then(() => {}, () => {});
  const after = await client.callTool({ name: "lenses", arguments: {} });
  expect(!after.isError, "no answer after a cancelled call");
}

function newClient(capabilities = {}) {
  return new Client({ name: "brief-ts-test", version: "0" }, { capabilities });
}

async function startHttp(root, extra = []) {
  const server = spawn(BRIEF, ["serve", "--http", "127.0.0.1:0", "--root", root, ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    server.stderr.on("data", (chunk) => {
      seen += chunk;
      // Whole lines only: a chunk may end in the middle of one.
      const line = seen.split("\n").slice(0, -1).find((l) => l.includes("listening on"));
      if (line) resolve(line.split("listening on ")[1].trim());
    });
    server.on("exit", (code) => reject(new Error(`brief serve exited ${code}: ${seen}`)));
  });
  try {
    return { server, url: new URL(url) };
  } catch (error) {
    server.kill();
    throw error;
  }
}

async function overStdio() {
  const client = newClient();
  await client.connect(new StdioClientTransport({ command: BRIEF, args: ["serve", "--root", ROOT], env: { ...process.env, BRIEF_NOW: NOW } }));
  await exercise(client);
  await client.close();
}

async function overHttp() {
  const { server, url } = await startHttp(ROOT);
  try {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(url));
    await exercise(client);
    await client.close();
    await concurrent(url, 20, 25);
  } finally {
    server.kill();
  }
}

async function fromRoots() {
  const nowhere = mkdtempSync(join(tmpdir(), "brief-no-project-"));
  const client = newClient({ roots: { listChanged: true } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(ROOT).href, name: "project" }] }));
  await client.connect(new StdioClientTransport({ command: BRIEF, args: ["serve", "--no-watch"], cwd: nowhere }));
  const result = await client.callTool({ name: "show", arguments: { id: "CHECKOUT-01", detail: "meta" } });
  expect(!result.isError && texts(result)[0] === cli("show", "CHECKOUT-01", "-D", "meta").stdout, `from roots: ${texts(result)}`);
  await client.close();
}

async function concurrent(url, clients, calls, targets = ["CHECKOUT-01"]) {
  const errors = [];
  const latencies = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, n) => {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(url));
    for (let i = 0; i < calls; i += 1) {
      const target = targets[(n * 7 + i) % targets.length];
      const t = performance.now();
      try {
        const result = await client.callTool({ name: "context", arguments: { target, depth: 2, budget: 1500 + n } });
        if (result.isError) errors.push(`client ${n}: ${texts(result)}`);
      } catch (error) {
        errors.push(`client ${n}: ${error}`);
      }
      latencies.push(performance.now() - t);
    }
    await client.close();
  }));
  const wall = performance.now() - started;
  expect(errors.length === 0, `${clients} concurrent clients: ${errors.slice(0, 3)}`);
  return { errors: errors.length, wall, latencies };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.round((s.length - 1) * p)];
};

async function bench() {
  const calls = Number(process.argv[5] ?? 500);
  const clients = Number(process.argv[6] ?? 20);
  const perClient = Number(process.argv[7] ?? 25);
  // With its file watcher, as an editor runs it: calls on an unchanged project read no file.
  const { server, url } = await startHttp(ROOT);
  try {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(url));
    // The workload of benches/mcp_http.py and mcp_stdio: 100 targets spread over the node
    // index, depth 2, budget 8000, each warmed once.
    const index = await client.readResource({ uri: "brief://nodes" });
    const ids = index.contents[0].text.split("\n").filter(Boolean).map((l) => l.split("\t")[0]);
    const step = Math.max(1, Math.floor(ids.length / 100));
    const targets = ids.filter((_, i) => i % step === 0).slice(0, 100);
    const ask = (target) => client.callTool({ name: "context", arguments: { target, depth: 2, budget: 8000 } });
    for (const target of targets) await ask(target);
    const latencies = [];
    for (let i = 0; i < calls; i += 1) {
      const t = performance.now();
      const result = await ask(targets[i % targets.length]);
      latencies.push(performance.now() - t);
      expect(!result.isError, `a sequential call failed: ${texts(result)}`);
    }
    await client.close();
    console.log(`typescript sdk over http: ${calls} sequential context calls over ${targets.length} targets, median ${median(latencies).toFixed(2)} ms, p90 ${pct(latencies, 0.9).toFixed(2)} ms, p99 ${pct(latencies, 0.99).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`);
    const run = await concurrent(url, clients, perClient, targets);
    console.log(`typescript sdk over http: ${clients} concurrent clients x ${perClient} calls, ${run.errors} errors, ${(run.wall / 1000).toFixed(2)} s, ${(clients * perClient / (run.wall / 1000)).toFixed(0)} calls/s, median ${median(run.latencies).toFixed(2)} ms, p90 ${pct(run.latencies, 0.9).toFixed(2)} ms, max ${Math.max(...run.latencies).toFixed(2)} ms`);
  } finally {
    server.kill();
  }
}

const modes = { stdio: overStdio, http: overHttp, roots: fromRoots, bench };
try {
  await modes[MODE]();
} catch (error) {
  failures.push(`${MODE}: ${error.stack ?? error}`);
}
for (const failure of failures) console.log(` - ${failure}`);
console.log(`typescript sdk ${MODE}: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
