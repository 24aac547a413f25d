// The end-to-end client of dossier's MCP server: the official TypeScript
// SDK, over stdio (or streamable HTTP with --http URL), as an agent runs
// it. It lists the tools, calls search and read, and prints what it got
// as one JSON object for the Go test to check.
//
//   node client.mjs --root ROOT --query Q --selector SEL -- COMMAND ARGS...
//   node client.mjs --http URL [--token T] --query Q --selector SEL
//   node client.mjs ... --bench N    (N search calls; prints their latencies)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const argv = process.argv.slice(2);
const opt = {};
let command = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--") { command = argv.slice(i + 1); break; }
  opt[argv[i].replace(/^--/, "")] = argv[++i];
}

let transport;
if (opt.http) {
  const headers = opt.token ? { Authorization: `Bearer ${opt.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(opt.http), { requestInit: { headers } });
} else {
  transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    env: { ...process.env },
    stderr: "inherit",
  });
}
const client = new Client({ name: "dossier-e2e", version: "1.0.0" });
await client.connect(transport);

const out = { server: client.getServerVersion(), tools: [] };
const listed = await client.listTools();
for (const t of listed.tools) out.tools.push({ name: t.name, required: t.inputSchema.required ?? [] });

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
if (opt.bench) {
  // Varied queries: none is answered from the engine's cache of recent results.
  const words = ["buffer", "error", "reader", "writer", "close", "timeout", "cache", "index", "slice", "lock"];
  const ms = [];
  for (let i = 0; i < Number(opt.bench); i++) {
    const t0 = process.hrtime.bigint();
    const res = await client.callTool({ name: "search", arguments: { query: `${opt.query} ${words[i % words.length]}${Math.floor(i / words.length) || ""}`, k: 10 } });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.isError) throw new Error(text(res));
  }
  ms.sort((a, b) => a - b);
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  out.bench = { calls: ms.length, p50_ms: q(0.5), p95_ms: q(0.95), max_ms: ms[ms.length - 1] };
} else {
  const search = await client.callTool({ name: "search", arguments: { query: opt.query, k: 3 } });
  out.search = { isError: !!search.isError, text: text(search), structured: search.structuredContent };
  const read = await client.callTool({ name: "read", arguments: { selector: opt.selector } });
  out.read = { isError: !!read.isError, text: text(read), structured: read.structuredContent };
  const escape = await client.callTool({ name: "read", arguments: { selector: "../../etc/passwd" } });
  out.escape = { isError: !!escape.isError, text: text(escape) };
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
