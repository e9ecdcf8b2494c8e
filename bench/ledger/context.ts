import type pg from 'pg';
import type { RowBlocks } from './figures.js';

/** What every part of bench:ledger shares: its scratch schema, pools, the JSON report and the rows for the closing lines. */
export type LedgerBench = Readonly<{
  schema: string;
  pool: pg.Pool;
  keysPool: pg.Pool;
  report: Record<string, unknown>;
  glance: RowBlocks[];
}>;
