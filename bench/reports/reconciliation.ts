/**
 * Reconciliation's benchmark: a provider statement of `lines` lines (default 100,000) reconciled with the ledger end to
 * end, from the uploaded bytes to the stored run (hash, parse, one read of the ledger, match, every item written, the
 * audit record) - the use case the upload route calls. Beside it, in the same run, two baselines on the same data: a
 * plain csv-parse of the same file, and one SQL read of the provider's deposits and withdrawals in the range.
 *
 * The ledger is seeded straight into the read models (set-based INSERT ... SELECT, no events): `deposits` deposits and
 * `withdrawals` withdrawals of the TEST provider in October 2026, a tenth of the withdrawals paid in batches of five under
 * one transaction hash. The statement lists most of them, some with an amount one satoshi off or another status, and
 * lines the ledger does not hold. `pool` must be a migrated schema holding no TEST deposits or withdrawals.
 */
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { formatDecimal } from '../../src/domain/money/money.js';
import { createReconciliations } from '../../src/finance/reconciliation/reconciliation.use-case.js';
import { parseTolerances } from '../../src/finance/reconciliation/tolerances.js';
import { round, spread } from '../lib/stats.js';

export type ReconciliationBenchOptions = Readonly<{
  pool: pg.Pool;
  lines?: number;
  deposits?: number;
  withdrawals?: number;
  /** Reconciliations timed (each of its own statement: the same lines under other references, so another hash). */
  runs?: number;
}>;

const FROM = '2026-10-01T00:00:00Z';
const TO = '2026-11-01T00:00:00Z';
const HEADER = 'Transaction ID,Type,Merchant Reference,Tx Hash,Currency,Amount,Status,Date';
const BATCH = 5;

/** The amount of item i in satoshis, the same in SQL and here: 1 to 100,000. */
const satoshis = (i: number): number => ((i * 7919) % 100_000) + 1;
const SQL_SATOSHIS = '((g * 7919) % 100000) + 1';

const seed = async (pool: pg.Pool, deposits: number, withdrawals: number): Promise<void> => {
  await pool.query(
    `INSERT INTO deposits (id, user_id, external_id, provider_id, network_id, currency_id, amount, usd_amount, status, tx_hash,
       created_at, updated_at, effective_at)
     SELECT 'bd-' || g, 1 + g % 1000, 'bde-' || g, 'TEST', 'BTC', 'BTC', (${SQL_SATOSHIS})::numeric / 100000000, 0, 'COMPLETE',
       'bdtx-' || g, t, t, t
     FROM generate_series(1, $1::int) g, LATERAL (SELECT $2::timestamptz + g * interval '20 seconds' AS t) x`,
    [deposits, FROM],
  );
  const batched = Math.floor(withdrawals / 10 / BATCH) * BATCH;
  await pool.query(
    `INSERT INTO withdrawals (id, user_id, currency_id, network_id, provider_id, amount, usd_amount, status, recipient_address,
       operation_key, transaction_id, tx_hash, confirmations, created_at, updated_at, effective_at)
     SELECT 'bw-' || g, 1 + g % 1000, 'BTC', 'BTC', 'TEST', (${SQL_SATOSHIS})::numeric / 100000000, 0, 'COMPLETE', 'bc1q',
       'bwk-' || g, 'bwt-' || g, CASE WHEN g > $1::int - $3::int THEN 'batch-' || ((g - 1) / ${BATCH}) ELSE 'bwtx-' || g END, 1, t, t, t
     FROM generate_series(1, $1::int) g, LATERAL (SELECT $2::timestamptz + g * interval '25 seconds' AS t) x`,
    [withdrawals, FROM, batched],
  );
  await pool.query('ANALYZE deposits; ANALYZE withdrawals');
};

/** The statement: deposits by external id, single payouts by withdrawal id, batches by hash, the rest lines nobody booked. */
export const statement = (run: number, lines: number, deposits: number, withdrawals: number): string => {
  const out: string[] = [HEADER];
  const at = '2026-10-10T12:00:00Z';
  const btc = (sat: number) => formatDecimal(BigInt(sat), 8);
  const listed = Math.min(deposits - Math.floor(deposits / 20), lines);
  for (let i = 1; i <= listed; i += 1) {
    const sat = satoshis(i) + (i % 100 === 0 ? 1 : 0);
    out.push(`R${run}-D${i},DEPOSIT,bde-${i},,BTC,${btc(sat)},${i % 150 === 0 ? 'PENDING' : 'SUCCESS'},${at}`);
  }
  const batched = Math.floor(withdrawals / 10 / BATCH) * BATCH;
  for (let i = 1; i <= withdrawals - batched && out.length <= lines; i += 1) {
    out.push(`R${run}-W${i},PAYOUT,bw-${i},,BTC,${btc(satoshis(i))},SUCCESS,${at}`);
  }
  for (let b = withdrawals - batched + 1; b <= withdrawals && out.length <= lines; b += BATCH) {
    let sum = 0;
    for (let i = b; i < b + BATCH; i += 1) sum += satoshis(i);
    out.push(`R${run}-B${b},PAYOUT,,batch-${(b - 1) / BATCH},BTC,${btc(sum)},SUCCESS,${at}`);
  }
  for (let g = 1; out.length <= lines; g += 1) out.push(`R${run}-G${g},DEPOSIT,ghost-${run}-${g},,BTC,0.001,SUCCESS,${at}`);
  return `${out.join('\r\n')}\r\n`;
};

const timed = async <T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> => {
  const started = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
};

export async function benchReconciliation(opts: ReconciliationBenchOptions) {
  const lines = opts.lines ?? 100_000;
  const deposits = opts.deposits ?? 60_000;
  const withdrawals = opts.withdrawals ?? 50_000;
  const runs = opts.runs ?? 3;
  const seeded = await timed(() => seed(opts.pool, deposits, withdrawals));
  const phases: Record<string, number[]> = {};
  const recon = createReconciliations({
    pool: opts.pool,
    tolerances: parseTolerances('BTC=0.00000000'),
    observe: (phase, ms) => (phases[phase] ??= []).push(ms),
  });
  const admin = 1;
  const results: { ms: number; nodeCpuMs: number; parseMs: number; ledgerReadMs: number; breaks: number; bytes: number }[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const text = statement(run, lines, deposits, withdrawals);
    const parseMs = (await timed(() => parse(text, { bom: true, skip_empty_lines: true }) as unknown)).ms;
    const ledgerReadMs = (
      await timed(() =>
        opts.pool.query(
          `SELECT id, amount::text, status FROM deposits WHERE provider_id = 'TEST' AND effective_at >= $1 AND effective_at < $2
           UNION ALL SELECT id, amount::text, status FROM withdrawals WHERE provider_id = 'TEST' AND effective_at >= $1 AND effective_at < $2`,
          [FROM, TO],
        ),
      )
    ).ms;
    const cpu = process.cpuUsage();
    const uploaded = await timed(() =>
      recon.upload({ providerId: 'TEST', from: FROM, to: TO, fileName: null, statement: Buffer.from(text), adminUserId: admin }),
    );
    if (uploaded.value._tag === 'Left') throw new Error(`the bench statement was refused: ${JSON.stringify(uploaded.value.left)}`);
    const nodeCpuMs = process.cpuUsage(cpu).user / 1000;
    results.push({ ms: uploaded.ms, nodeCpuMs, parseMs, ledgerReadMs, breaks: uploaded.value.right.breaks, bytes: text.length });
  }
  const reconcileMs = results.map((r) => r.ms);
  return {
    lines,
    ledgerItems: deposits + withdrawals,
    statementBytes: results[0]!.bytes,
    breaks: results[0]!.breaks,
    seedMs: round(seeded.ms),
    reconcileMs: reconcileMs.map(round),
    reconcileMedianMs: round(spread(reconcileMs).median),
    /** CPU time of this process during an upload (user): what a loaded machine does not inflate as it does wall time. */
    nodeCpuMedianMs: round(spread(results.map((r) => r.nodeCpuMs)).median),
    phaseMedianMs: Object.fromEntries(Object.entries(phases).map(([name, ms]) => [name, round(spread(ms).median)])),
    baselineParseMedianMs: round(spread(results.map((r) => r.parseMs)).median),
    baselineLedgerReadMedianMs: round(spread(results.map((r) => r.ledgerReadMs)).median),
    budgetMs: 10_000,
    withinBudget: Math.max(...reconcileMs) < 10_000,
  };
}

export type ReconciliationBenchFigures = Awaited<ReturnType<typeof benchReconciliation>>;
