/**
 * npm run bench:reconcile — a 100,000-line provider statement reconciled end to end (upload to stored run), next to a
 * plain parse of the same file and one read of the same ledger items (bench/reports/reconciliation.ts). Settings:
 * BENCH_RECON_LINES (100,000), BENCH_RECON_DEPOSITS (60,000), BENCH_RECON_WITHDRAWALS (50,000), BENCH_RUNS (3). Runs
 * in a schema of its own on DATABASE_URL, dropped at the end. Writes bench/results/reconcile-<timestamp>.json.
 * Not a test: nothing here asserts a figure.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { createPool } from '../src/infra/pg.js';
import { migrateAll } from '../src/schema.js';
import { benchReconciliation } from './reports/reconciliation.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_reconcile_${process.pid}`;

const main = async (): Promise<void> => {
  const admin = createPool({ connectionString: DATABASE_URL, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 4 });
  try {
    await migrateAll(pool);
    const figures = await benchReconciliation({
      pool,
      lines: Number(process.env.BENCH_RECON_LINES ?? 100_000),
      deposits: Number(process.env.BENCH_RECON_DEPOSITS ?? 60_000),
      withdrawals: Number(process.env.BENCH_RECON_WITHDRAWALS ?? 50_000),
      runs: Number(process.env.BENCH_RUNS ?? 3),
    });
    console.log(
      'reconcile %d lines against %d ledger items: median %d ms (runs %s ms; budget %d ms, within: %s)',
      figures.lines,
      figures.ledgerItems,
      figures.reconcileMedianMs,
      figures.reconcileMs.join(', '),
      figures.budgetMs,
      figures.withinBudget,
    );
    console.log(
      'phases (median ms): %s; CPU of this process per upload %d ms',
      JSON.stringify(figures.phaseMedianMs),
      figures.nodeCpuMedianMs,
    );
    console.log(
      'baselines: csv-parse of the same file %d ms, one read of the ledger items %d ms; %d breaks',
      figures.baselineParseMedianMs,
      figures.baselineLedgerReadMedianMs,
      figures.breaks,
    );
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/reconcile-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    const machine = { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30) };
    await writeFile(file, `${JSON.stringify({ at: new Date().toISOString(), machine, reconciliation: figures }, null, 2)}\n`);
    console.log('report: %s', file);
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
