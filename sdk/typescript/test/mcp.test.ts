// Trawl's MCP server through the official MCP TypeScript SDK, the client
// most agents use, over both transports: `trawl mcp` on stdio and /mcp on a
// running server. e2e/sdk_typescript_test.go starts the real binary and
// sets TRAWL_SDK_MCP_*; without them this test is skipped.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const env = process.env;
const skip = env.TRAWL_SDK_MCP_URL ? false : "TRAWL_SDK_MCP_URL is not set (e2e/sdk_typescript_test.go sets it)";

function need(name: string): string {
  const v = env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

interface Call {
  args: Record<string, unknown>;
  /** In the text the agent reads. */
  want: string[];
  /** Nowhere in the answer. */
  not?: string[];
}

/** One call of each tool; a tool the server lists without a call here fails the test. */
function calls(site: string, jobId: () => string, crawlId: () => string, monitorId: () => string): Record<string, () => Call> {
  const page = `http://${site}/blog/2026/post-1`;
  const schema = { type: "object", properties: { title: { type: "string" }, story: { type: "integer" } }, required: ["title", "story"] };
  return {
    scrape: () => ({ args: { url: page, render: "never" }, want: ["Title: Post 1", "Status: 200, text/html", "# Post 1", "Story number 1"], not: ["<p>"] }),
    content: () => ({ args: { url: page }, want: ["Title: Post 1", "Story number 1 begins here."], not: ["<p>", "<article>"] }),
    map: () => ({ args: { url: `http://${site}/`, limit: 5 }, want: [`http://${site}/`] }),
    search: () => ({ args: { query: "tide pools", engine: "google" }, want: ["Story number 1."] }),
    search_content: () => ({
      args: { query: "tide pools", max_content: 1, whitelist_domains: [site] },
      want: ["Story number 1 begins here."],
      not: ["<p>"],
    }),
    prompt: () => ({ args: { prompt: "What lives in tide pools?" }, want: ["You asked: What lives in tide pools?"] }),
    extract: () => ({ args: { url: page, schema }, want: ['"story":1', '"title":"Post 1"'] }),
    bulk_submit: () => ({ args: { urls: [page], email: true, render: "never" }, want: ['"job_id"', '"queued"'] }),
    bulk_status: () => ({ args: { job_id: jobId() }, want: [jobId()] }),
    crawl_submit: () => ({ args: { url: `http://${site}/`, limit: 3, max_depth: 1, render: "never" }, want: ['"crawl_id"', '"queued"'] }),
    crawl_status: () => ({ args: { crawl_id: crawlId(), per_page: 5 }, want: [crawlId(), '"skipped"'] }),
    credits: () => ({ args: {}, want: ['"balance"'] }),
    monitor_create: () => ({ args: { urls: [page], schedule: "@daily", email: true, name: "Post 1" }, want: ['"id"', '"active"', '"@daily"'] }),
    monitor_list: () => ({ args: { per_page: 5 }, want: [monitorId()] }),
    monitor_get: () => ({ args: { id: monitorId() }, want: [monitorId(), '"schedule":"@daily"'] }),
    monitor_update: () => ({ args: { id: monitorId(), status: "paused" }, want: [monitorId(), '"paused"'] }),
    monitor_delete: () => ({ args: { id: monitorId() }, want: [monitorId(), '"deleted":true'] }),
  };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content.map((c: { type?: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : "")).join("");
}

/** Lists the tools and calls each through a client on transport. */
async function exercise(t: TestContext, name: string, transport: Transport): Promise<void> {
  const client = new Client({ name: "trawl-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tl) => tl.name).sort();
    assert.deepEqual(names, need("TRAWL_SDK_MCP_TOOLS").split(",").sort(), "the tools listed");
    let jobId = "";
    let crawlId = "";
    let monitorId = "";
    const table = calls(need("TRAWL_SDK_MCP_SITE"), () => jobId, () => crawlId, () => monitorId);
    // The status tools need the job and the crawl their submit tools
    // started, the monitor tools the monitor monitor_create made, and
    // monitor_delete comes last.
    const rank = (n: string) =>
      n === "monitor_delete" ? 2 : n === "bulk_status" || n === "crawl_status" || (n.startsWith("monitor_") && n !== "monitor_create") ? 1 : 0;
    const order = [0, 1, 2].flatMap((r) => names.filter((n) => rank(n) === r));
    for (const tool of order) {
      await t.test(`${name}: ${tool}`, async () => {
        const make = table[tool];
        assert.ok(make, `no call of the tool ${tool} in test/mcp.test.ts`);
        const c = make();
        // callTool checks structuredContent against the tool's outputSchema.
        const res = await client.callTool({ name: tool, arguments: c.args });
        const text = textOf(res.content);
        assert.ok(!res.isError, `${tool} failed: ${text}`);
        assert.ok(res.structuredContent && typeof res.structuredContent === "object", `${tool}: no structured content`);
        for (const w of c.want) assert.ok(text.includes(w), `${tool}: no ${JSON.stringify(w)} in\n${text}`);
        const structured = JSON.stringify(res.structuredContent);
        for (const n of c.not ?? []) assert.ok(!text.includes(n) && !structured.includes(n), `${tool}: ${JSON.stringify(n)} in the answer`);
        if (tool === "bulk_submit") jobId = String((res.structuredContent as { job_id?: unknown }).job_id ?? "");
        if (tool === "crawl_submit") crawlId = String((res.structuredContent as { crawl_id?: unknown }).crawl_id ?? "");
        if (tool === "monitor_create") monitorId = String((res.structuredContent as { id?: unknown }).id ?? "");
      });
    }
    // An enumerated argument outside its values is refused, naming it.
    const bad = await client.callTool({ name: "content", arguments: { url: `http://${need("TRAWL_SDK_MCP_SITE")}/blog/2026/post-1`, render: "sometimes" } });
    assert.ok(bad.isError && textOf(bad.content).includes("render"), `render sometimes: ${textOf(bad.content)}`);
  } finally {
    await client.close();
  }
}

test("the official MCP client lists and calls every tool", { skip, timeout: 120_000 }, async (t) => {
  const base = need("TRAWL_SDK_MCP_URL");
  const token = need("TRAWL_SDK_MCP_TOKEN");
  await exercise(
    t,
    "http",
    new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  await exercise(
    t,
    "stdio",
    new StdioClientTransport({
      command: need("TRAWL_SDK_MCP_BIN"),
      args: ["mcp"],
      env: { PATH: env.PATH ?? "", TRAWL_API_URL: base, TRAWL_API_KEY: token },
      stderr: "inherit",
    }),
  );
});
