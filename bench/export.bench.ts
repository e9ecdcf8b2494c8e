/**
 * npm run bench:export [-- --rows N --repeat R] — the transactions export (src/audit/export.ts) next to
 * PostgreSQL's own COPY of the same rows, in the same run, on the same server:
 *   1. COPY (<the export's very SELECT>) TO STDOUT (FORMAT csv, HEADER) run by psql, its stdout piped
 *      into this Node process, which hashes it (SHA-256) and writes it to a file: the same work the
 *      export does after formatting (pg-copy-streams is not installed; psql is the COPY client);
 *   2. the same COPY with psql writing to /dev/null: the server's ceiling, for reference;
 *   3. exportToFile, CSV and NDJSON (a manifest each).
 * The rows go straight into the transactions read model with INSERT ... SELECT generate_series: this
 * measures the export, not the ledger (loading 1,000,000 rows through the projector would take long).
 * Bounded memory: RSS and heap are sampled every 10 ms during each export; the export of a tenth of the
 * rows and of all of them should show the same peak (it holds about one socket buffer and one chunk).
 * The CSV file is also checked against COPY's output byte for byte (CRLF -> LF; the seeded rows hold no CR).
 * Writes bench/results/export-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { exportQuery, exportToFile } from '../src/audit/export.js';
import { createPool } from '../src/infra/pg.js';
import { migrateNonCore } from '../src/schema.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { values: args } = parseArgs({ options: { rows: { type: 'string' }, repeat: { type: 'string' } }, allowPositionals: true });
const ROWS = Number(args.rows ?? process.env.BENCH_ROWS ?? 1_000_000);
const REPEAT = Number(args.repeat ?? process.env.BENCH_REPEAT ?? 2);
if (!Number.isInteger(ROWS) || ROWS < 10 || !Number.isInteger(REPEAT) || REPEAT < 1)
  throw new Error('--rows must be an integer >= 10, --repeat >= 1');
const START = Date.parse('2024-01-01T00:00:00Z');
const STEP_MS = 37;
const MB = 1024 * 1024;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** One row per g, in time order, with every column the export reads; a few text values need CSV quoting. */
const SEED = `
  INSERT INTO transactions (id, user_id, currency_id, amount, before_balance, after_balance, usd_amount, type, original_id,
    admin_user_id, reference_id, event_id, position, position_commit, position_prepare, created_at, updated_at, effective_at)
  SELECT 'tx_' || g, 1 + (g::bigint * 7919) % 20000, (ARRAY['BTC', 'USDT', 'DBC'])[1 + g % 3], a.amount, b.before, b.before + a.amount,
    CASE WHEN g % 5 = 0 THEN NULL ELSE abs(a.amount) * 3 END,
    (ARRAY['DEPOSIT', 'BET', 'BET_PAYOUT', 'WITHDRAW', 'ADMIN_TIP'])[1 + g % 5],
    CASE WHEN g % 97 = 0 THEN 'tx_' || (g - 1) END, CASE WHEN g % 5 = 4 THEN 7 END,
    CASE WHEN g % 1000 = 0 THEN 'ref,"' || g || '"' ELSE 'bet-' || g END,
    gen_random_uuid(), g || '/' || g, g, g,
    $1::timestamptz + g * interval '${STEP_MS} milliseconds', $1::timestamptz + g * interval '${STEP_MS} milliseconds',
    $1::timestamptz + g * interval '${STEP_MS} milliseconds'
  FROM generate_series(1, $2::int) g
  CROSS JOIN LATERAL (SELECT ((g::bigint * 7919) % 2000001 - 1000000)::numeric / 10000 AS amount) a
  CROSS JOIN LATERAL (SELECT 100000 + (g % 50000)::numeric / 100 AS before) b`;

type Sample = { rssPeakMb: number; rssDeltaMb: number; heapPeakMb: number; heapDeltaMb: number };
/** Peak RSS and heap while `fn` runs, sampled every 10 ms, with the deltas over the values just before. */
const sampled = async <T>(fn: () => Promise<T>): Promise<{ result: T; seconds: number; memory: Sample }> => {
  global.gc?.();
  const base = process.memoryUsage();
  let rss = base.rss;
  let heap = base.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 10);
  const t0 = performance.now();
  try {
    const result = await fn();
    return {
      result,
      seconds: (performance.now() - t0) / 1000,
      memory: {
        rssPeakMb: round(rss / MB),
        rssDeltaMb: round((rss - base.rss) / MB),
        heapPeakMb: round(heap / MB),
        heapDeltaMb: round((heap - base.heapUsed) / MB),
      },
    };
  } finally {
    clearInterval(timer);
  }
};

/** A Writable sink that hashes what passes (the COPY baseline's side of "hash and write"). */
const hashing = (hash: ReturnType<typeof createHash>, counter: { bytes: number }): Transform =>
  new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      counter.bytes += chunk.length;
      done(null, chunk);
    },
  });

/** psql runs COPY; its stdout goes to `sink` (a file through Node) or straight to /dev/null. */
const copyViaPsql = async (schema: string, sql: string, sink: 'node' | 'devnull', file: string) => {
  const child = spawn(
    'psql',
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', DATABASE_URL, '-c', `COPY (${sql}) TO STDOUT (FORMAT csv, HEADER)`],
    {
      env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` },
      stdio: ['ignore', sink === 'node' ? 'pipe' : 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  if (sink === 'node') await pipeline(child.stdout!, hashing(hash, counter), createWriteStream(file) as Writable);
  const code = await exited;
  if (code !== 0) throw new Error(`psql COPY failed (${code}): ${stderr}`);
  return { bytes: counter.bytes, sha256: sink === 'node' ? hash.digest('hex') : null };
};

/** SHA-256 of a CSV file with CRLF turned into LF: equal to COPY's when the values hold no CR. */
const lfHash = async (file: string): Promise<string> => {
  const hash = createHash('sha256');
  let carry = false;
  await pipeline(
    createReadStream(file),
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        let text = (carry ? '\r' : '') + chunk.toString('latin1');
        carry = text.endsWith('\r');
        if (carry) text = text.slice(0, -1);
        hash.update(Buffer.from(text.replace(/\r\n/g, '\n'), 'latin1'));
        done();
      },
    }),
  );
  return hash.digest('hex');
};

const main = async (): Promise<void> => {
  const schema = `bench_export_${Date.now()}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 4 });
  const dir = await mkdtemp(join(tmpdir(), 'export-bench-'));
  const report: Record<string, unknown> = {
    at: new Date().toISOString(),
    database: DATABASE_URL.replace(/\/\/[^@]*@/, '//'),
    rows: ROWS,
    repeat: REPEAT,
    node: process.version,
    copyClient: 'psql (COPY ... TO STDOUT) piped into Node; pg-copy-streams is not installed',
    seeding: 'INSERT ... SELECT generate_series straight into the transactions read model',
  };
  try {
    await migrateNonCore(pool);
    let t0 = performance.now();
    await pool.query(SEED, [new Date(START).toISOString(), ROWS]);
    await pool.query('VACUUM ANALYZE transactions');
    report.seedSeconds = round((performance.now() - t0) / 1000);
    console.log('seeded %d transactions in %d s', ROWS, report.seedSeconds);

    const end = new Date(START + (ROWS + 1) * STEP_MS);
    const tenth = new Date(START + Math.floor(ROWS / 10 + 1) * STEP_MS);
    const range = { from: new Date(START), to: end };
    // COPY takes no bind parameters: the range goes in as literals (ISO strings this script made).
    const { text, values } = exportQuery('transactions', range);
    const copySql = values.reduce((sql, v, i) => sql.replaceAll(`$${i + 1}::`, `${admin.escapeLiteral(v)}::`), text);

    const runs: Record<string, Array<{ seconds: number; rowsPerSec: number; bytes: number; memory?: Sample }>> = {
      copyToNodeFile: [],
      copyToDevNull: [],
      exportCsv: [],
      exportNdjson: [],
    };
    const hashes: Record<string, string | null> = {};
    let exportBytes = { csv: 0, ndjson: 0 };
    for (let r = 0; r < REPEAT; r += 1) {
      t0 = performance.now();
      const viaNode = await copyViaPsql(schema, copySql, 'node', join(dir, 'copy.csv'));
      let seconds = (performance.now() - t0) / 1000;
      runs.copyToNodeFile!.push({ seconds: round(seconds, 3), rowsPerSec: Math.round(ROWS / seconds), bytes: viaNode.bytes });
      hashes.copy = viaNode.sha256;
      console.log(
        'COPY -> psql -> Node (sha256, file)  %d rows/s  %d s  %d MB',
        Math.round(ROWS / seconds),
        round(seconds),
        round(viaNode.bytes / MB),
      );

      t0 = performance.now();
      await copyViaPsql(schema, copySql, 'devnull', '');
      seconds = (performance.now() - t0) / 1000;
      runs.copyToDevNull!.push({ seconds: round(seconds, 3), rowsPerSec: Math.round(ROWS / seconds), bytes: viaNode.bytes });
      console.log('COPY -> psql -> /dev/null            %d rows/s  %d s', Math.round(ROWS / seconds), round(seconds));

      for (const format of ['csv', 'ndjson'] as const) {
        const file = join(dir, `transactions.${format}`);
        const { result, seconds: s, memory } = await sampled(() => exportToFile({ pool, kind: 'transactions', format, ...range, file }));
        if (result.rows !== ROWS) throw new Error(`export wrote ${result.rows} rows, expected ${ROWS}`);
        const key = format === 'csv' ? 'exportCsv' : 'exportNdjson';
        runs[key]!.push({ seconds: round(s, 3), rowsPerSec: Math.round(ROWS / s), bytes: result.bytes, memory });
        exportBytes = { ...exportBytes, [format]: result.bytes };
        hashes[format] = result.sha256;
        console.log(
          'export %s -> file (+ manifest)       %d rows/s  %d s  %d MB  peak RSS +%d MB, heap +%d MB',
          format.padEnd(6),
          Math.round(ROWS / s),
          round(s),
          round(result.bytes / MB),
          memory.rssDeltaMb,
          memory.heapDeltaMb,
        );
      }
    }

    // Bounded memory: a tenth of the rows against all of them.
    const small = await sampled(() =>
      exportToFile({ pool, kind: 'transactions', format: 'csv', from: range.from, to: tenth, file: join(dir, 'tenth.csv') }),
    );
    const full = await sampled(() => exportToFile({ pool, kind: 'transactions', format: 'csv', ...range, file: join(dir, 'full.csv') }));
    report.memory = {
      note: 'peak during the export over the value just before it; the same peak for 10x the rows means bounded memory',
      tenth: { rows: small.result.rows, ...small.memory },
      all: { rows: full.result.rows, ...full.memory },
    };
    console.log(
      'memory: %d rows -> peak RSS +%d MB heap +%d MB; %d rows -> peak RSS +%d MB heap +%d MB',
      small.result.rows,
      small.memory.rssDeltaMb,
      small.memory.heapDeltaMb,
      full.result.rows,
      full.memory.rssDeltaMb,
      full.memory.heapDeltaMb,
    );

    const csvMatchesCopy = (await lfHash(join(dir, 'transactions.csv'))) === hashes.copy;
    const copyBytes = (await stat(join(dir, 'copy.csv'))).size;
    report.csvMatchesCopy = { sameBytesAfterCrlfToLf: csvMatchesCopy, copyBytes, exportCsvBytes: exportBytes.csv, lines: ROWS + 1 };
    console.log('CSV export equals COPY output (CRLF -> LF): %s', csvMatchesCopy);

    const best = (k: string) => Math.max(...runs[k]!.map((x) => x.rowsPerSec));
    const copyNode = best('copyToNodeFile');
    const copyNull = best('copyToDevNull');
    report.runs = runs;
    report.summary = {
      copyToNodeFileRowsPerSec: copyNode,
      copyToDevNullRowsPerSec: copyNull,
      exportCsvRowsPerSec: best('exportCsv'),
      exportNdjsonRowsPerSec: best('exportNdjson'),
      csvVsCopyToNode: round(best('exportCsv') / copyNode),
      ndjsonVsCopyToNode: round(best('exportNdjson') / copyNode),
      csvVsCopyToDevNull: round(best('exportCsv') / copyNull),
      ndjsonVsCopyToDevNull: round(best('exportNdjson') / copyNull),
      aim: 'export >= 0.5 x COPY',
    };
    console.log(
      'summary (best of %d): COPY->Node %d rows/s, COPY->/dev/null %d rows/s; export csv %d rows/s = %d x COPY->Node (%d x /dev/null); ndjson %d rows/s = %d x COPY->Node (%d x /dev/null)',
      REPEAT,
      copyNode,
      copyNull,
      best('exportCsv'),
      round(best('exportCsv') / copyNode),
      round(best('exportCsv') / copyNull),
      best('exportNdjson'),
      round(best('exportNdjson') / copyNode),
      round(best('exportNdjson') / copyNull),
    );
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/export-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log('report: %s', file);
};

await main();
