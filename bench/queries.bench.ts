/**
 * npm run bench:queries — every back-office list shape over 1,000,000 bets and 1,000,000 transactions, through
 * the real admin HTTP route (SuperAdmin bearer token, validation, consistent read, JSON) with where its total came
 * from (`counter`: the kept counts; `scan`: a count(*)), and, in the same run, the SQL that route sent (recorded
 * by a pool wrapper) run bare on the same pool, next to the bare count(*) every total cost before the counts.
 * The rows go straight into the read-model tables with set-based SQL: this measures the read side only;
 * loading 2,000,000 rows through the ledger and projector would take hours.
 * Writes bench/results/queries-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type pg from 'pg';
import { COUNTED_LISTS } from '../src/read-models/list-counts/list-counts.js';
import { bearer, call, createAuthEnv, signIn } from '../test/support/auth-env.js';
import { percentile, round } from './lib/stats.js';

const BETS = Number(process.env.BENCH_BETS ?? 1_000_000);
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 1_000_000);
const USERS = 20_000;
const FIRST_USER = 100_001;
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const AIM_P99_MS = 50;
/** Shapes whose total comes from the kept counts aim lower: the page is all that is left. */
const COUNTER_AIM_P99_MS = 20;
const DAY = 86_400_000;
const NOW = Date.now();
const daysAgo = (d: number): string => new Date(NOW - d * DAY).toISOString();

const GAMES = `(VALUES (0, 1, 'Dice', 'dice', 'ORIGINALS', 'House'), (1, 2, 'Crash', 'crash', 'ORIGINALS', 'House'),
  (2, 3, 'Mines', 'mines', 'ORIGINALS', 'House'), (3, 4, 'Plinko', 'plinko', 'ORIGINALS', 'House'),
  (4, 5, 'Sweet Bonanza', 'sweet-bonanza', 'SLOTS', 'Pragmatic Play'), (5, 6, 'Gates of Olympus', 'gates-of-olympus', 'SLOTS', 'Pragmatic Play'),
  (6, 7, 'Book of Dead', 'book-of-dead', 'SLOTS', 'Play''n GO'), (7, 8, 'Reactoonz', 'reactoonz', 'SLOTS', 'Play''n GO'),
  (8, 9, 'Lightning Roulette', 'lightning-roulette', 'LIVE', 'Evolution'), (9, 10, 'Crazy Time', 'crazy-time', 'LIVE', 'Evolution'),
  (10, 11, 'Blackjack', 'blackjack', 'LIVE', 'Evolution'), (11, 12, 'Dice Deluxe', 'dice-deluxe', 'SLOTS', 'Hacksaw Gaming'))
  AS games(k, game_id, name, slug, type, provider)`;
// A tenth of the rows belong to 20 heavy players (deep per-user pages); the rest spread over 20,000 users.
const userOf = (g: string) =>
  `CASE WHEN ${g} % 10 = 0 THEN ${FIRST_USER} + (${g} / 10) % 20 ELSE ${FIRST_USER} + (${g}::bigint * 7919) % ${USERS} END`;
// Rows arrive in time order (as the projector appends them): created_at grows with g over 90 days, with jitter.
const createdAt = (g: string, n: number) =>
  `now() - interval '90 days' + (${g}::float8 / ${n}) * interval '90 days' + random() * interval '30 seconds'`;

const load = async (pool: pg.Pool): Promise<Record<string, number>> => {
  const timed = async (sql: string): Promise<number> => {
    const t0 = performance.now();
    await pool.query(sql);
    return Math.round(performance.now() - t0);
  };
  const users = await timed(`INSERT INTO users (id, email, username, roles, permissions, is_banned, country, mfa_enabled, provider,
      identity_providers, marketing_opt_in, profile, created_at, updated_at)
    SELECT ${FIRST_USER} + g, 'player' || g || '@example.test', 'player' || g, '{User}', '{}', g % 97 = 0, 'DE', false, 'password',
      '{}', false, jsonb_build_object('vipLevel', g % 7), now() - interval '120 days', now()
    FROM generate_series(0, ${USERS - 1}) g`);
  const bets = await timed(`INSERT INTO bets (id, user_id, round_id, game_id, game_name, game_slug, game_type, game_provider, currency_id,
      amount, usd_amount, payout, usd_payout, multiplier, status, error_details, transaction_id, created_at, updated_at, settled_at,
      effective_at)
    SELECT 'b' || s.g, s.user_id, 'r' || s.g, games.game_id, games.name, games.slug, games.type, games.provider, s.currency_id,
      round(s.usd / s.rate, 8), s.usd, round(s.usd * s.mult / s.rate, 8), round(s.usd * s.mult, 8),
      CASE WHEN s.status = 'SETTLED' THEN s.mult END, s.status, CASE WHEN s.status = 'ERROR' THEN 'provider timeout' END,
      'bet_' || s.g, s.at, s.at + interval '2 seconds', CASE WHEN s.status = 'SETTLED' THEN s.at + interval '2 seconds' END, s.at
    FROM (
      SELECT g, ${userOf('g')} AS user_id, (g * 31) % 12 AS k, c.currency_id, c.rate,
        round((0.1 * exp(random() * 8))::numeric, 2) AS usd, st.status, ${createdAt('g', BETS)} AS at,
        CASE WHEN st.status <> 'SETTLED' THEN 0 WHEN random() < 0.52 THEN 0 ELSE round((0.5 / (1.0001 - random()))::numeric, 2) END AS mult
      FROM generate_series(1, ${BETS}) g
      CROSS JOIN LATERAL (SELECT (ARRAY['USDT', 'USDT', 'USDT', 'BTC', 'ETH'])[1 + g % 5] AS currency_id,
        (ARRAY[1, 1, 1, 60000, 3000])[1 + g % 5]::numeric AS rate) c
      CROSS JOIN LATERAL (SELECT CASE WHEN r < 0.95 THEN 'SETTLED' WHEN r < 0.97 THEN 'CREATED' WHEN r < 0.99 THEN 'ROLLBACK' ELSE 'ERROR' END AS status
        FROM (SELECT random() + g * 0 AS r) x) st
    ) s JOIN ${GAMES} ON games.k = s.k`);
  const transactions =
    await timed(`INSERT INTO transactions (id, user_id, currency_id, amount, before_balance, after_balance, usd_amount, type,
      original_id, admin_user_id, reference_id, event_id, position, position_commit, position_prepare, created_at, updated_at,
      effective_at)
    SELECT 'tx_' || s.g, s.user_id, 'USDT', s.amount, 1000 + s.g % 5000, 1000 + s.g % 5000 + s.amount, abs(s.amount), s.type,
      NULL, CASE WHEN s.type IN ('ADMIN_TIP', 'ADMIN_DEDUCT') THEN ${FIRST_USER} END, 'ref' || s.g, gen_random_uuid(),
      (s.g * 100) || '/' || (s.g * 100), s.g * 100, s.g * 100, s.at, s.at, s.at
    FROM (
      SELECT g, ${userOf('g')} AS user_id, t.type, ${createdAt('g', TRANSACTIONS)} AS at,
        round((CASE WHEN t.type IN ('BET', 'WITHDRAW', 'ADMIN_DEDUCT') THEN -1 ELSE 1 END * 0.1 * exp(random() * 8))::numeric, 2) AS amount
      FROM generate_series(1, ${TRANSACTIONS}) g
      CROSS JOIN LATERAL (SELECT CASE WHEN r < 0.45 THEN 'BET' WHEN r < 0.85 THEN 'BET_PAYOUT' WHEN r < 0.92 THEN 'DEPOSIT' WHEN r < 0.96 THEN 'WITHDRAW'
        WHEN r < 0.98 THEN 'ROLLBACK_BET' WHEN r < 0.99 THEN 'ADMIN_TIP' ELSE 'LEADERBOARD_PRIZE' END AS type FROM (SELECT random() + g * 0 AS r) x) t
    ) s`);
  // The counts the projections keep in step with the rows, filled here from the loaded rows with the same keys.
  const counts = await timed(
    COUNTED_LISTS.filter((l) => l.table === 'bets' || l.table === 'transactions')
      .map((l) => `INSERT INTO ${l.counts} (key, n) SELECT k, count(*) FROM ${l.table} AS r, unnest(${l.keys}) AS k GROUP BY k;`)
      .join('\n'),
  );
  // Autovacuum would have run on tables this size: the visibility map matters to index-only counts.
  const analyze = await timed('VACUUM ANALYZE users, bets, transactions, bets_counts, transactions_counts');
  return { users, bets, transactions, counts, analyze };
};

type Recorded = { text: string; values: unknown[] };
const stats = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  return { p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), maxMs: round(s.at(-1) ?? 0) };
};

type Case = Readonly<{
  name: string;
  method: 'GET' | 'POST';
  path: (page: number) => string;
  body?: (page: number) => unknown;
  pages?: 'spread' | 'deep';
}>;
const betsGet = (sortBy: string, sortOrder: string, where?: unknown) => (page: number) =>
  `/bets?sortBy=${sortBy}&sortOrder=${sortOrder}&take=20&page=${page}${where === undefined ? '' : `&where=${encodeURIComponent(JSON.stringify(where))}`}`;

const cases: Case[] = [
  { name: 'GET /bets CREATED_AT desc, page 100', method: 'GET', path: betsGet('CREATED_AT', 'desc'), pages: 'deep' },
  ...['CREATED_AT', 'MULTIPLIER', 'USD_AMOUNT', 'USD_PAYOUT'].flatMap((sortBy) =>
    ['desc', 'asc'].map((order): Case => ({ name: `GET /bets ${sortBy} ${order}`, method: 'GET', path: betsGet(sortBy, order) })),
  ),
  { name: 'GET /bets status ROLLBACK', method: 'GET', path: betsGet('CREATED_AT', 'desc', { status: 'ROLLBACK' }) },
  {
    name: 'GET /bets userId (heavy player) + status',
    method: 'GET',
    path: betsGet('CREATED_AT', 'desc', { userId: FIRST_USER, status: 'SETTLED' }),
  },
  {
    name: 'GET /bets createdAt range + status',
    method: 'GET',
    path: (page) =>
      `${betsGet('CREATED_AT', 'desc')(page)}&where[status]=SETTLED&where[createdAt][gte]=${encodeURIComponent(daysAgo(60))}` +
      `&where[createdAt][lte]=${encodeURIComponent(daysAgo(10))}`,
  },
  {
    name: 'GET /bets gameIdentity.slug contains "DICE" insensitive',
    method: 'GET',
    path: betsGet('CREATED_AT', 'desc', { gameIdentity: { slug: { contains: 'DICE', mode: 'insensitive' } } }),
  },
  {
    name: 'GET /bets where[...] usdAmount gte + createdAt range + status (bracketed keys)',
    method: 'GET',
    path: (page) =>
      `${betsGet('USD_AMOUNT', 'desc')(page)}&where[status]=SETTLED&where[usdAmount][gte]=50` +
      `&where[createdAt][gte]=${encodeURIComponent(daysAgo(60))}&where[createdAt][lte]=${encodeURIComponent(daysAgo(10))}`,
  },
  {
    name: 'POST /accounting/transactions (whole log)',
    method: 'POST',
    path: () => '/accounting/transactions',
    body: (page) => ({ sortOrder: 'desc', take: 20, page }),
  },
  {
    name: 'POST /accounting/transactions userId',
    method: 'POST',
    path: () => '/accounting/transactions',
    body: (page) => ({ sortOrder: 'desc', take: 20, page, where: { userId: FIRST_USER } }),
  },
  {
    name: 'POST /accounting/transactions userId + createdAt range',
    method: 'POST',
    path: () => '/accounting/transactions',
    body: (page) => ({
      sortOrder: 'desc',
      take: 20,
      page,
      where: { userId: FIRST_USER, createdAt: { gte: daysAgo(80), lte: daysAgo(1) } },
    }),
  },
  {
    name: 'POST /accounting/transactions createdAt range only',
    method: 'POST',
    path: () => '/accounting/transactions',
    body: (page) => ({ sortOrder: 'desc', take: 20, page, where: { createdAt: { gte: daysAgo(60), lte: daysAgo(30) } } }),
  },
  {
    name: 'POST /accounting/transactions type BET',
    method: 'POST',
    path: () => '/accounting/transactions',
    body: (page) => ({ sortOrder: 'desc', take: 20, page, where: { type: 'BET' } }),
  },
];

/** The exact count(*) the page's filter costs (what every total cost before the counts): the query of its keys or rows, unlimited. */
const countOf = (page: Recorded): Recorded => {
  const m =
    /ARRAY\(\s*(SELECT[\s\S]*?)\s+LIMIT \$\d+ OFFSET \$\d+\)\)/.exec(page.text) ??
    /^([\s\S]*?)\s+LIMIT \$\d+ OFFSET \$\d+\s*$/.exec(page.text);
  if (!m) throw new Error(`cannot derive the count of: ${page.text}`);
  return { text: `SELECT count(*) FROM (${m[1]}) AS page`, values: page.values.slice(0, -2) };
};

const main = async (): Promise<void> => {
  const env = await createAuthEnv('bench_queries');
  const report: Record<string, unknown> = {
    at: new Date().toISOString(),
    bets: BETS,
    transactions: TRANSACTIONS,
    users: USERS,
    runs: RUNS,
    aimP99Ms: AIM_P99_MS,
  };
  try {
    const { pool } = env;
    const superadmin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    // The projector runs as in production (consistent reads wait for it); it has caught up before the rows are loaded
    // behind its back, so that it never truncates them.
    const projector = env.startProjector();
    await projector.waitFor(await env.store.headPosition());
    console.log('loading %d bets and %d transactions straight into the read models...', BETS, TRANSACTIONS);
    report.loadMs = await load(pool);
    console.log('loaded: %j', report.loadMs);
    report.indexes = (
      await pool.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('bets', 'transactions') ORDER BY indexname`,
      )
    ).rows.map((r) => r.indexdef);

    // Records what the route sends (the page, and the counts' statement when the total comes from them).
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
    let recorded: Recorded[] = [];
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      if (typeof text === 'string' && /FROM (bets|transactions)(_counts)? /.test(text)) recorded.push({ text, values: values ?? [] });
      return query(text, values);
    };

    const results = [];
    for (const c of cases) {
      // A fresh access token per case: a slow run outlives one token's lifetime.
      const token = (await signIn(env, superadmin)).accessToken;
      const http: number[] = [];
      const barePage: number[] = [];
      const bareCount: number[] = [];
      const bareCounter: number[] = [];
      let total = 0;
      let source = '';
      let sql: Recorded[] = [];
      for (let i = -1; i < RUNS; i += 1) {
        // i = -1 warms up
        const page = c.pages === 'deep' ? 100 : 1 + Math.round((Math.max(i, 0) * 99) / Math.max(RUNS - 1, 1));
        recorded = [];
        const t0 = performance.now();
        const reply = await call(env.adminUrl, c.method, c.path(page), { headers: bearer(token), body: c.body?.(page) });
        const t1 = performance.now();
        if (reply.status !== 200) throw new Error(`${c.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
        sql = recorded;
        source = reply.headers.get('x-total-source') ?? '?';
        const pageSql = sql.find((q) => /LIMIT \$\d+ OFFSET/.test(q.text));
        if (!pageSql) throw new Error(`${c.name}: the page query was not recorded`);
        const counterSql = sql.find((q) => q !== pageSql);
        const t2 = performance.now();
        await query(pageSql.text, pageSql.values);
        const t3 = performance.now();
        const count = countOf(pageSql);
        await query(count.text, count.values);
        const t4 = performance.now();
        if (counterSql) await query(counterSql.text, counterSql.values);
        const t5 = performance.now();
        total = (reply.body as { total: number }).total;
        if (i >= 0) {
          http.push(t1 - t0);
          barePage.push(t3 - t2);
          bareCount.push(t4 - t3);
          if (counterSql) bareCounter.push(t5 - t4);
        }
      }
      const aim = source === 'counter' ? COUNTER_AIM_P99_MS : AIM_P99_MS;
      const row = {
        name: c.name,
        total,
        totalSource: source,
        http: stats(http),
        barePage: stats(barePage),
        bareCountStar: stats(bareCount),
        bareCounter: bareCounter.length > 0 ? stats(bareCounter) : null,
        aimP99Ms: aim,
        meetsAim: stats(http).p99Ms < aim,
        sql: sql.map((q) => q.text.replace(/\s+/g, ' ')),
        values: sql[0]?.values,
      };
      results.push(row);
      console.log(
        '%s  total %d from %s | http p50 %d p99 %d ms | bare: page p99 %d, count(*) p99 %d%s ms%s',
        c.name.padEnd(66),
        total,
        source.padEnd(7),
        row.http.p50Ms,
        row.http.p99Ms,
        row.barePage.p99Ms,
        row.bareCountStar.p99Ms,
        row.bareCounter ? `, counts p99 ${row.bareCounter.p99Ms}` : '',
        row.meetsAim ? '' : `  (misses the ${aim} ms aim)`,
      );
    }
    report.queries = results;
  } finally {
    await env.close();
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/queries-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log('report: %s', file);
  process.exit(0); // the auth env's captcha stand-in and pools must not keep a finished benchmark alive
};

await main();
