/**
 * npm run bench:failover [-- --restarts N --kills N --workers N]
 *
 * The deployed shape as real processes (one API, two projectors: `src/main.ts` with ROLES) on a PostgreSQL cluster
 * and a Redis server of the bench's own, under a steady ledger load through the internal API:
 *   - PostgreSQL restarts (pg_ctl restart -m fast): the restart's own duration, next to the ledger's error window
 *     (first refused command to the first command answered 2xx after the last refusal) and the time until /health is ok;
 *   - projector SIGKILL: takeover time (kill -> a deposit made right after the kill is in the read model through the
 *     surviving projector), next to the same read-model latency without a kill, measured in the same run.
 * Each kill is followed by a replacement projector, so every round starts with two. Also checks that no command answered
 * 2xx is missing from the store. Writes bench/results/failover-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startDeployment, waitForHealth, type Deployment } from '../test/support/deployment.js';
import { countFound, startLedgerLoad } from '../test/support/ledger-load.js';
import { signUp } from '../test/support/ops-clients.js';
import { SERVICE_TEST_ENV, waitFor } from '../test/support/service-process.js';

const { values } = parseArgs({
  options: {
    restarts: { type: 'string', default: '3' },
    kills: { type: 'string', default: '3' },
    workers: { type: 'string', default: '4' },
  },
});
const RESTARTS = Number(values.restarts);
const KILLS = Number(values.kills);
const WORKERS = Number(values.workers);
const TOKEN = SERVICE_TEST_ENV.INTERNAL_API_TOKEN!;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const internal = async (base: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
  const res = await fetch(`${base}/internal${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': TOKEN },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
};

/** Requests and completes a deposit; returns its id and when it was acknowledged. */
const deposit = async (base: string, userId: number): Promise<{ id: string; at: number }> => {
  const created = await internal(base, '/deposits', {
    externalId: `bench-${Date.now()}-${Math.random()}`,
    userId,
    providerId: 'TEST',
    networkId: 'ETH',
    currencyId: 'USDT',
    amount: '1',
  });
  const id = String(created.id);
  await internal(base, `/deposits/${id}/complete`, { txHash: '0x1' });
  return { id, at: Date.now() };
};

/** Ms from `since` until the deposit is COMPLETE in the deposits read model. */
const visibleAfter = async (db: pg.Pool, depositId: string, since: number): Promise<number> => {
  const seen = await waitFor(
    async () => {
      const { rows } = await db.query<{ status: string }>('SELECT status FROM deposits WHERE id = $1', [depositId]);
      return rows[0]?.status === 'COMPLETE' ? Date.now() : undefined;
    },
    60_000,
    10,
  );
  if (seen === undefined) throw new Error(`deposit ${depositId} never reached the read model`);
  return seen - since;
};

const main = async (): Promise<void> => {
  const d: Deployment = await startDeployment({ apis: 1, gateways: 0, projectors: 2 });
  const api = d.apis[0]!;
  const db = new pg.Pool({ connectionString: d.pg.url, max: 2 });
  db.on('error', () => undefined);
  try {
    const users = await Promise.all([0, 1, 2, 3].map((i) => signUp(api.publicUrl!, `bench${i}`)));
    const probeUser = users[0]!.userId;

    // PostgreSQL restarts under load.
    const restarts: { restartMs: number; errorWindowMs: number; refused: number; healthOkAfterMs: number }[] = [];
    let answered = 0;
    let found = 0;
    for (let r = 0; r < RESTARTS; r += 1) {
      const load = startLedgerLoad({
        adminUrls: [api.adminUrl!],
        serviceToken: TOKEN,
        userIds: users.map((u) => u.userId),
        workers: WORKERS,
        pauseMs: 5,
      });
      await new Promise((res) => setTimeout(res, 2_000));
      const started = Date.now();
      await d.pg.restart();
      const restarted = Date.now();
      await waitForHealth(api, undefined, 60_000);
      const healthy = Date.now();
      await new Promise((res) => setTimeout(res, 2_000));
      const tally = await load.stop();
      const failed = tally.answers.filter((a) => !a.ok);
      const firstFailure = failed[0]?.at;
      const lastFailure = failed.at(-1)?.at;
      const recovered = lastFailure === undefined ? undefined : tally.answers.find((a) => a.ok && a.at > lastFailure)?.at;
      restarts.push({
        restartMs: restarted - started,
        errorWindowMs: firstFailure === undefined || recovered === undefined ? 0 : recovered - firstFailure,
        refused: failed.length,
        healthOkAfterMs: healthy - restarted,
      });
      answered += tally.acknowledged.length;
      found += await countFound(d.pg.url, tally.acknowledged);
      process.stdout.write(`restart ${r + 1}: ${JSON.stringify(restarts.at(-1))}\n`);
    }

    // Projector takeover under load, next to the read-model latency without a kill.
    const baseline: number[] = [];
    const takeovers: number[] = [];
    const load = startLedgerLoad({
      adminUrls: [api.adminUrl!],
      serviceToken: TOKEN,
      userIds: users.slice(1).map((u) => u.userId),
      workers: WORKERS,
      pauseMs: 5,
    });
    for (let k = 0; k < KILLS; k += 1) {
      for (let i = 0; i < 3; i += 1) {
        const dep = await deposit(api.adminUrl!, probeUser);
        baseline.push(await visibleAfter(db, dep.id, dep.at));
      }
      const victim = d.projectors.shift()!;
      const killedAt = Date.now();
      await victim.kill();
      const dep = await deposit(api.adminUrl!, probeUser);
      takeovers.push(await visibleAfter(db, dep.id, killedAt));
      d.projectors.push(await d.start(`projector-r${k + 1}`, { ROLES: 'projector', METRICS_PORT: '0' }));
      process.stdout.write(
        `kill ${k + 1}: takeover ${takeovers.at(-1)} ms (read model after an ack without a kill: ${baseline.slice(-3).join(', ')} ms)\n`,
      );
    }
    const tally = await load.stop();
    answered += tally.acknowledged.length;
    found += await countFound(d.pg.url, tally.acknowledged);

    const report = {
      at: new Date().toISOString(),
      settings: { restarts: RESTARTS, kills: KILLS, workers: WORKERS },
      postgresRestart: {
        runs: restarts,
        median: {
          restartMs: median(restarts.map((r) => r.restartMs)),
          errorWindowMs: median(restarts.map((r) => r.errorWindowMs)),
          healthOkAfterMs: median(restarts.map((r) => r.healthOkAfterMs)),
        },
      },
      projectorTakeover: {
        takeoverMs: takeovers,
        baselineReadModelMs: baseline,
        median: { takeoverMs: median(takeovers), baselineReadModelMs: median(baseline) },
      },
      commands: { answered2xx: answered, foundInStore: found },
    };
    console.table({
      'PostgreSQL restart (pg_ctl restart -m fast), ms': { median: report.postgresRestart.median.restartMs },
      'ledger error window during the restart, ms': { median: report.postgresRestart.median.errorWindowMs },
      '/health ok after the restart returned, ms': { median: report.postgresRestart.median.healthOkAfterMs },
      'projector takeover (kill -> next ack in read model), ms': { median: report.projectorTakeover.median.takeoverMs },
      'baseline: ack -> read model, no kill, ms': { median: report.projectorTakeover.median.baselineReadModelMs },
    });
    process.stdout.write(`commands answered 2xx: ${answered}, found in the store: ${found}\n`);
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/failover-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    await writeFile(file, JSON.stringify(report, null, 2));
    process.stdout.write(`report: ${file}\n`);
  } finally {
    await db.end().catch(() => undefined);
    await d.stop();
  }
};

await main();
