/**
 * npm run bench:reports — what the finance reports cost at a casino's size. BENCH_BETS (10,000,000) bets over 90
 * days go straight into the bets read model (set-based SQL); the finance read model's daily rows are built from them
 * as its projection would have kept them. Then, in one run:
 * - the GGR report for the last full month through the real admin route (by day, game, provider), p50/p99 over
 *   BENCH_RUNS requests, next to one aggregate SQL over the bets table giving the same figures (checked equal);
 * - the finance projection's own cost: BENCH_PROJECT_EVENTS bet events applied through it, next to the bets read
 *   model's projection on the same events;
 * - reconciliation of a 100,000-line provider statement, next to a plain parse and one ledger read
 *   (bench/reports/reconciliation.ts; alone: npm run bench:reconcile).
 * Writes bench/results/reports-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { bearer, call, createAuthEnv, signIn } from '../test/support/auth-env.js';
import { percentile, round } from './lib/stats.js';
import { loadBets, buildDaily, baselineGgr, lastFullMonth } from './reports/load.js';
import { benchProjection } from './reports/projection.js';
import { benchReconciliation } from './reports/reconciliation.js';

const BETS = Number(process.env.BENCH_BETS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const BASELINE_RUNS = Number(process.env.BENCH_BASELINE_RUNS ?? 3);
const PROJECT_EVENTS = Number(process.env.BENCH_PROJECT_EVENTS ?? 20_000);
const AIM_P99_MS = 200;

const stats = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  return { p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), maxMs: round(s.at(-1) ?? 0) };
};

const main = async (): Promise<void> => {
  const env = await createAuthEnv('bench_reports');
  const machine = { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30) };
  const report: Record<string, unknown> = { at: new Date().toISOString(), machine, bets: BETS, runs: RUNS, aimP99Ms: AIM_P99_MS };
  try {
    const { pool } = env;
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const projector = env.startProjector();
    await projector.waitFor(await env.store.headPosition());
    await projector.stop();
    console.log('loading %d bets over 90 days into the bets read model...', BETS);
    report.loadMs = await loadBets(pool, BETS);
    report.buildDailyMs = await buildDaily(pool);
    const { n } = (await pool.query<{ n: string }>('SELECT count(*) AS n FROM finance_gaming_daily')).rows[0]!;
    console.log('loaded: %j; %s daily gaming rows', report.loadMs, n);

    const month = lastFullMonth();
    const token = (await signIn(env, admin)).accessToken;
    const baseline: number[] = [];
    let expected: Record<string, string> = {};
    for (let i = 0; i < BASELINE_RUNS; i++) {
      const t0 = performance.now();
      expected = await baselineGgr(pool, month);
      baseline.push(performance.now() - t0);
    }
    const routes = [];
    for (const groupBy of ['day', 'game', 'provider']) {
      const path = `/finance/reports/gaming?period=${month}&groupBy=${groupBy}`;
      const samples: number[] = [];
      let reply;
      for (let i = -3; i < RUNS; i++) {
        const t0 = performance.now();
        reply = await call(env.adminUrl, 'GET', path, { headers: bearer(token) });
        if (i >= 0) samples.push(performance.now() - t0);
        if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      const totals = Object.fromEntries((reply!.body.totals as { currencyId: string; ggr: string }[]).map((t) => [t.currencyId, t.ggr]));
      const same = JSON.stringify(totals) === JSON.stringify(expected);
      if (!same)
        throw new Error(`GGR through the route ${JSON.stringify(totals)} differs from the bets table's ${JSON.stringify(expected)}`);
      const row = { path, rows: reply!.body.rows.length, http: stats(samples), sameAsBaseline: same };
      routes.push(row);
      console.log(
        '%s  %d rows | http p50 %d p99 %d ms | equal to the aggregate SQL',
        path.padEnd(56),
        row.rows,
        row.http.p50Ms,
        row.http.p99Ms,
      );
    }
    const base = stats(baseline);
    console.log('baseline: one aggregate SQL over %d bets for %s: p50 %d ms (%d runs)', BETS, month, base.p50Ms, BASELINE_RUNS);
    report.gaming = { month, routes, baselineAggregateSql: base, ggrByCurrency: expected };

    report.projection = await benchProjection(pool, PROJECT_EVENTS, (line) => console.log(line));

    const recon = await benchReconciliation({ pool });
    console.log(
      'reconciliation: %d statement lines against %d ledger items, median %d ms (budget %d ms); baselines: parse %d ms, ledger read %d ms',
      recon.lines,
      recon.ledgerItems,
      recon.reconcileMedianMs,
      recon.budgetMs,
      recon.baselineParseMedianMs,
      recon.baselineLedgerReadMedianMs,
    );
    report.reconciliation = recon;
  } finally {
    await env.close();
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/reports-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log('report: %s', file);
  process.exit(0); // the auth env's captcha stand-in and pools must not keep a finished benchmark alive
};

await main();
