// Calls every read function of the original service's SDK (npm mainstreet-oracle 0.9.2) whose
// route agentrep serves, against agentrep on loopback, and checks each answer against the types
// its sdk/index.d.ts declares. Prints one JSON line of results; exits 1 on the first failure.
//
// usage: node sdk_reads.mjs <origin> <json: {alive, second, unknown, tag, word, intent}>
import { createRequire } from 'node:module';

const require = createRequire(process.env.AGENTREP_CLIENTS_NODE_MODULES + '/');
const ms = require('mainstreet-oracle/sdk');
const [origin, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
ms.configure({ origin });

// The declared types of sdk/index.d.ts, as runtime checks.
const str = (v) => typeof v === 'string';
const num = (v) => typeof v === 'number' && Number.isFinite(v);
const bool = (v) => typeof v === 'boolean';
const nullable = (f) => (v) => v === null || f(v);
const optional = (f) => (v) => v === undefined || f(v);
const arr = (f) => (v) => Array.isArray(v) && v.every(f);
const oneOf = (...xs) => (v) => xs.includes(v);
const record = (f) => (v) => v !== null && typeof v === 'object' && Object.values(v).every(f);
const any = () => true;
function shape(name, fields) {
  const check = (v, path = name) => {
    if (v === null || typeof v !== 'object') throw new Error(`${path}: expected an object, got ${JSON.stringify(v)}`);
    for (const [key, f] of Object.entries(fields)) {
      const value = v[key];
      if (f.nested) f.nested(value, `${path}.${key}`);
      else if (!f(value)) throw new Error(`${path}.${key}: ${JSON.stringify(value)} does not match sdk/index.d.ts`);
    }
    return true;
  };
  const f = (v) => check(v);
  f.nested = (v, path) => check(v, path);
  return f;
}
const nested = (f) => { const g = (v) => f(v); g.nested = f.nested; return g; };
const nullableShape = (f) => { const g = (v) => v === null || f(v); g.nested = (v, p) => v === null || f.nested(v, p); return g; };
const optionalNullableShape = (f) => { const g = (v) => v == null || f(v); g.nested = (v, p) => v == null || f.nested(v, p); return g; };

const SettlementStats = shape('SettlementStats', { count: num, volumeUsdc: num });
const SlaStats = shape('SlaStats', {
  samples: num, okRate: nullable(num), latencyP50ms: nullable(num), latencyP95ms: nullable(num),
  avgLatencyMs: nullable(num), note: nullable(str),
});
const ScoreMetrics = shape('ScoreMetrics', {
  successRate: nullable(num), jobCount: nullable(num), usdcVolume: nullable(num), daysSinceLastJob: nullable(num),
  settlements: optionalNullableShape(SettlementStats), sla: optionalNullableShape(SlaStats),
});
const Health = shape('Health', { alive: bool, status: nullable(num), probedAt: nullable(str) });
const Price = shape('Price', { amount: str, asset: str, network: str });
const ScoreResponse = shape('ScoreResponse', {
  agentAddress: str, score: nullable(num), metrics: nested(ScoreMetrics), description: nullable(str),
  resourcePath: nullable(str), price: nullableShape(Price), health: nullableShape(Health), source: str,
  snapshotDate: nullable(str), billed: oneOf('free', 'paid'),
});
const AgentRow = shape('AgentRow', {
  payTo: str, description: nullable(str), score: nullable(num), metrics: nested(ScoreMetrics),
  resourcePath: nullable(str), ecosystem: str, network: str,
  sparkline7d: optional(arr(shape('SparkPoint', { snapshot_date: str, score: nullable(num) }))),
});
const LeaderboardResponse = shape('LeaderboardResponse', {
  version: str, network: str, generatedAt: str, count: num, totalIndexed: num, networkBreakdown: record(num),
  results: arr(AgentRow),
});
const CompareResponse = shape('CompareResponse', {
  version: str, a: any, b: any, winner: oneOf('a', 'b', 'tie', null), margin: nullable(num), recommendation: str,
});
const TagsResponse = shape('TagsResponse', { version: str, count: num, tags: arr(shape('TagEntry', { tag: str, count: num })) });
const TaggedResponse = shape('TaggedResponse', {
  version: str, tag: str, count: num,
  results: arr(shape('TaggedAgent', { payTo: str, description: nullable(str), score: nullable(num), jobCount: nullable(num), tags: arr(str) })),
});
const MatchEntry = shape('MatchEntry', {
  payTo: str, score: nullable(num), matchScore: num, description: nullable(str), serviceUrl: nullable(str),
  price: nullableShape(shape('MatchPrice', { amountRaw: str, amountUsdc: num, asset: str })),
  jobCount: nullable(num), successRate: nullable(num), settlements: nullableShape(SettlementStats),
  sla: nullableShape(SlaStats), callExample: str, verify: str,
});
const MatchResponse = shape('MatchResponse', {
  version: str, intent: str, tokens: arr(str), stems: arr(str),
  filters: shape('MatchFilters', { minScore: num, maxPrice: nullable(num), limit: num }),
  count: num, matches: arr(MatchEntry), noStrongMatch: bool, note: nullable(str),
});

const results = {};
async function run(name, call, check) {
  let value;
  try {
    value = await call();
  } catch (e) {
    throw new Error(`${name} threw: ${e.message}`);
  }
  if (check) check(value);
  results[name] = value;
  return value;
}
const expectThrow = async (name, call, pattern) => {
  try {
    await call();
  } catch (e) {
    if (!pattern.test(e.message)) throw new Error(`${name}: threw "${e.message}", expected ${pattern}`);
    results[name] = e.message;
    return;
  }
  throw new Error(`${name}: expected the SDK to refuse, it did not`);
};

try {
  await run('score', () => ms.score(args.alive), ScoreResponse);
  await run('scoreUnknown', () => ms.score(args.unknown), ScoreResponse);
  await run('leaderboard', () => ms.leaderboard({ limit: 5, sparkline: true }), LeaderboardResponse);
  await run('leaderboardBase', () => ms.leaderboard({ limit: 3, network: 'base' }), LeaderboardResponse);
  await run('compare', () => ms.compare(args.alive, args.second), CompareResponse);
  await run('movers', () => ms.movers(3));
  await run('featured', () => ms.featured());
  await run('trending', () => ms.trending(3));
  await run('search', () => ms.search(args.word, 5));
  await run('recommend', () => ms.recommend(args.alive, 3));
  await run('history', () => ms.history(args.alive, 7));
  await run('healthSummary', () => ms.healthSummary());
  await run('me', () => ms.me());
  await run('random', () => ms.random());
  await run('randomBase', () => ms.random('base'));
  await run('tags', () => ms.tags(), TagsResponse);
  await run('tagged', () => ms.tagged(args.tag, 5), TaggedResponse);
  await run('match', () => ms.match({ intent: args.intent, limit: 3, maxPrice: '1.00' }), MatchResponse);
  await run('matchString', () => ms.match(args.intent), MatchResponse);
  await run('pick', () => ms.pick(args.intent), MatchEntry);
  await run('vet', () => ms.vet(args.alive), ScoreResponse);
  // The SDK's own refusals, which agentrep's answers must trigger exactly as the original's did.
  await expectThrow('vetUnknown', () => ms.vet(args.unknown), /^score null < 30$/);
  await expectThrow('scoreInvalid', () => ms.score('0x12'), /invalid address/);
  console.log(JSON.stringify({ ok: true, results }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: e.message }));
  process.exit(1);
}
