// Drives agentrep's MCP server with an official TypeScript SDK client and prints what it saw as one JSON
// line on stdout; tests/mcp/main.rs compares it with the HTTP reads. Run by the Rust test with
// NODE_PATH=.tools/clients/node_modules (scripts/fetch-test-clients.sh installs the pinned SDKs there).
//
//   node ts_client.cjs '<plan JSON>'
//   plan: { sdk: "v1" | "v2", mode?: "legacy" | "auto" | "pin" (v2), url?: string, preferSse?: boolean,
//           command?: string, args?: string[], search: string, intent: string,
//           calls?: [{ name, arguments }] }
// Besides a fixed flow (the leaderboard's top seller's score, a search, a match, an invalid address, an
// unknown tool), it makes every call of `calls` and reports each result; the SDK validates every
// structuredContent against the tool's outputSchema, so a schema that does not fit its answer fails here.
// `url` selects streamable HTTP, `command` + `args` stdio. `preferSse` makes the transport's fetch ask
// for text/event-stream ahead of JSON, so the SDK has to parse an SSE answer.
'use strict';

const plan = JSON.parse(process.argv[2]);

function load() {
  if (plan.sdk === 'v1') {
    return {
      Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
      Http: require('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
      Stdio: require('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
    };
  }
  const v2 = require('@modelcontextprotocol/client');
  return { Client: v2.Client, Http: v2.StreamableHTTPClientTransport, Stdio: require('@modelcontextprotocol/client/stdio').StdioClientTransport };
}

function structured(result) {
  if (result.isError) throw new Error(`unexpected tool error: ${JSON.stringify(result.content)}`);
  if (!result.structuredContent) throw new Error(`no structuredContent: ${JSON.stringify(result).slice(0, 300)}`);
  const text = JSON.parse(result.content[0].text);
  if (JSON.stringify(text) !== JSON.stringify(result.structuredContent)) throw new Error('the text block differs from structuredContent');
  return result.structuredContent;
}

async function main() {
  const { Client, Http, Stdio } = load();
  const info = { name: `agentrep-test-${plan.sdk}`, version: '1.0.0' };
  const options = plan.sdk === 'v2'
    ? { versionNegotiation: { mode: plan.mode === 'pin' ? { pin: '2026-07-28' } : (plan.mode ?? 'legacy') } }
    : undefined;
  const client = new Client(info, options);
  const seen = { accept: [], contentTypes: [] };
  let transport;
  if (plan.url) {
    const fetchFn = async (url, init) => {
      const headers = new Headers(init?.headers);
      if (plan.preferSse && headers.has('accept')) headers.set('accept', 'application/json;q=0.5, text/event-stream');
      seen.accept.push(headers.get('accept'));
      const response = await fetch(url, { ...init, headers });
      seen.contentTypes.push(`${init?.method ?? 'GET'} ${response.status} ${response.headers.get('content-type') ?? ''}`);
      return response;
    };
    transport = new Http(new URL(plan.url), { fetch: fetchFn });
  } else {
    transport = new Stdio({ command: plan.command, args: plan.args, stderr: 'ignore' });
  }
  await client.connect(transport);
  const out = {
    sdk: plan.sdk,
    transport: plan.url ? 'http' : 'stdio',
    protocolVersion: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null,
    era: client.getProtocolEra?.() ?? null,
    server: client.getServerVersion() ?? null,
  };
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => t.name);
  out.listTtlMs = listed.ttlMs ?? null;
  out.listCacheScope = listed.cacheScope ?? null;
  out.scoreTool = listed.tools.find((t) => t.name === 'mainstreet_score');
  out.leaderboard = structured(await client.callTool({ name: 'mainstreet_leaderboard', arguments: { limit: 3 } }));
  const top = out.leaderboard.results[0].payTo;
  out.score = structured(await client.callTool({ name: 'mainstreet_score', arguments: { address: top } }));
  out.search = structured(await client.callTool({ name: 'mainstreet_search', arguments: { q: plan.search } }));
  out.match = structured(await client.callTool({ name: 'mainstreet_match', arguments: { intent: plan.intent, limit: 3 } }));
  out.history = structured(await client.callTool({ name: 'agentrep_history', arguments: { address: top, days: 3 } }));
  const bad = await client.callTool({ name: 'mainstreet_score', arguments: { address: '0x12' } });
  out.invalid = { isError: bad.isError === true, text: bad.content[0].text, structured: bad.structuredContent ?? null };
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    out.unknownTool = null;
  } catch (e) {
    out.unknownTool = { code: e.code ?? null, message: String(e.message) };
  }
  out.calls = [];
  for (const c of plan.calls ?? []) {
    try {
      const r = await client.callTool({ name: c.name, arguments: c.arguments });
      out.calls.push({ name: c.name, isError: r.isError === true, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null });
    } catch (e) {
      out.calls.push({ name: c.name, thrown: String(e && e.message ? e.message : e) });
    }
  }
  await client.close();
  out.http = seen;
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => {
  process.stderr.write(`ts_client (${plan.sdk} ${plan.mode ?? ''}): ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
