import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPORT_KINDS,
  exportColumns,
  ExportRangeError,
  exportToFile,
  runExport,
  type ExportFormat,
  type ExportKind,
} from '../../src/audit/export.js';
import { CSV_FORMULA_GUARD } from '../../src/audit/export.format.js';
import { parseCsv } from '../support/csv.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { eventually } from '../support/eventually.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';
import { migrateNonCore } from '../../src/schema.js';

/** Collects what an export writes. */
const sink = () => {
  const chunks: Buffer[] = [];
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { output, bytes: () => Buffer.concat(chunks) };
};

let w: ListsEnv;
let alice: { id: number };
let bob: { id: number };
const NOTES = 'thanks, "friend"\nline two\r\nend';
const LINES = 'first line\nsecond line\rthird';
let dir: string;

const exported = async (kind: ExportKind, format: ExportFormat, range: { from?: string; to?: string } = {}) => {
  const { output, bytes } = sink();
  const result = await runExport({ pool: w.env.pool, kind, format, output, ...range });
  return { result, body: bytes() };
};

beforeAll(async () => {
  w = await createListsEnv('export');
  alice = await w.env.makeUser();
  bob = await w.env.makeUser();
  w.at('2026-03-01T10:00:00.000Z');
  await w.deposit(alice.id, '100.5');
  await w.deposit(alice.id, '0.12345678', { currencyId: 'BTC', usdAmount: '8000.5' });
  w.at('2026-03-01T10:00:01.000Z');
  await w.bet(alice.id, '1.25', { payout: '3' });
  w.at('2026-03-01T10:00:02.000Z');
  await w.tip(bob.id, '0.07', NOTES);
  w.at('2026-03-01T10:00:03.000Z');
  await w.tip(alice.id, '0.01', LINES);
  w.at('2026-03-01T11:00:00.000Z');
  await w.reject((await w.withdraw(alice.id, '2')).id);
  w.at('2026-03-02T09:00:00.000Z');
  await w.deposit(bob.id, '7');
  await w.caughtUp();
  dir = await mkdtemp(join(tmpdir(), 'export-test-'));
});
afterAll(async () => {
  await w?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runExport as CSV', () => {
  it('when the transactions are exported, then the file is RFC 4180 with a header, CRLF lines and every row exactly as the read model holds it', async () => {
    const { result, body } = await exported('transactions', 'csv');
    const text = body.toString('utf8');
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(exportColumns('transactions').map((c) => c.name));
    const db = await w.env.pool.query<Record<string, string | null>>(
      `SELECT id, user_id::text, currency_id, type, amount::text, before_balance::text, after_balance::text, usd_amount::text, original_id,
         admin_user_id::text, reference_id, event_id::text, position, created_at, updated_at, effective_at FROM transactions
         ORDER BY effective_at, position_commit, position_prepare`,
    );
    expect(rows).toHaveLength(db.rows.length);
    expect(result.rows).toBe(db.rows.length);
    expect(db.rows.length).toBe(9); // 3 deposits, bet + payout, 2 tips, withdrawal hold + refund
    rows.forEach((row, i) => {
      const r = db.rows[i]!;
      expect(row).toEqual([
        r.id,
        r.user_id,
        r.currency_id,
        r.type,
        r.amount,
        r.before_balance,
        r.after_balance,
        r.usd_amount,
        r.original_id,
        r.admin_user_id,
        r.reference_id,
        r.event_id,
        r.position,
        (r.created_at as unknown as Date).toISOString(),
        (r.updated_at as unknown as Date).toISOString(),
        (r.effective_at as unknown as Date).toISOString(),
      ]);
    });
    expect(rows.find((r) => r[2] === 'BTC')?.[4]).toBe('0.12345678');
    expect(rows.map((r) => r[13])).toEqual([...rows.map((r) => r[13])].sort());
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('when a value holds commas, quotes and line breaks, then it is quoted with doubled quotes and reads back unchanged', async () => {
    const { body } = await exported('tips', 'csv');
    const text = body.toString('utf8');
    expect(text).toContain('"thanks, ""friend""\nline two\r\nend"');
    expect(text).toContain('"first line\nsecond line\rthird"');
    const [header, tip, second] = parseCsv(text);
    expect(tip![header!.indexOf('notes')]).toBe(NOTES);
    expect(second![header!.indexOf('notes')]).toBe(LINES);
    expect(tip![header!.indexOf('amount')]).toBe('0.07');
    expect(tip![header!.indexOf('senderUserId')]).toBe(String(w.superadmin.id));
    expect(tip![header!.indexOf('tag')]).toBeNull();
  });

  it('when from and to are given, then exactly the rows with from <= effective_at < to are exported (here equal to created_at)', async () => {
    const { result, body } = await exported('transactions', 'csv', { from: '2026-03-01T10:00:01.000Z', to: '2026-03-01T11:00:00.000Z' });
    const [, ...rows] = parseCsv(body.toString('utf8'));
    expect(rows.map((r) => [r[3], r[13]])).toEqual([
      ['BET', '2026-03-01T10:00:01.000Z'],
      ['BET_PAYOUT', '2026-03-01T10:00:01.000Z'],
      ['ADMIN_TIP', '2026-03-01T10:00:02.000Z'],
      ['ADMIN_TIP', '2026-03-01T10:00:03.000Z'],
    ]);
    expect(result.rows).toBe(4);
  });

  it('when no row is in the range, then the CSV is the header alone and NDJSON is empty', async () => {
    const range = { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' };
    const csv = await exported('deposits', 'csv', range);
    expect(csv.body.toString('utf8')).toBe(
      `${exportColumns('deposits')
        .map((c) => c.name)
        .join(',')}\r\n`,
    );
    expect(csv.result.rows).toBe(0);
    const ndjson = await exported('deposits', 'ndjson', range);
    expect(ndjson.body.length).toBe(0);
    expect(ndjson.result).toMatchObject({ rows: 0, bytes: 0, sha256: createHash('sha256').update('').digest('hex') });
  });

  it('when any kind is exported, then rows, bytes and SHA-256 describe exactly the bytes written', async () => {
    for (const kind of EXPORT_KINDS) {
      for (const format of ['csv', 'ndjson'] as const) {
        const { result, body } = await exported(kind, format);
        expect(result.bytes, `${kind} ${format}`).toBe(body.length);
        expect(result.sha256).toBe(createHash('sha256').update(body).digest('hex'));
        const table = kind === 'tips' ? 'admin_tips' : kind;
        expect(result.rows).toBe(Number((await w.env.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n));
      }
    }
  });

  it('when rows are handed over one per chunk (batchSize 1), then the bytes are the same as in 64 KiB chunks', async () => {
    const whole = await exported('transactions', 'ndjson');
    const { output, bytes } = sink();
    let chunks = 0;
    const counting = new Writable({
      write(chunk: Buffer, enc, done) {
        chunks += 1;
        output.write(chunk, enc, done);
      },
    });
    const result = await runExport({ pool: w.env.pool, kind: 'transactions', format: 'ndjson', output: counting, batchSize: 1 });
    expect(bytes().equals(whole.body)).toBe(true);
    expect(result).toEqual(whole.result);
    expect(chunks).toBe(result.rows);
    await expect(
      runExport({ pool: w.env.pool, kind: 'transactions', format: 'csv', output: sink().output, batchSize: 0 }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it('when the range is not a date or ends before it starts, then the export refuses it before reading', async () => {
    await expect(exported('bets', 'csv', { from: 'yesterday' })).rejects.toBeInstanceOf(ExportRangeError);
    await expect(exported('bets', 'csv', { from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' })).rejects.toMatchObject({
      field: 'to',
    });
  });
});

describe('runExport as NDJSON', () => {
  it('when bets are exported, then each line is one JSON object with decimals as strings, ids as numbers and nulls as null', async () => {
    const { result, body } = await exported('bets', 'ndjson');
    const lines = body.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(result.rows);
    const bet = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(bet)).toEqual(exportColumns('bets').map((c) => c.name));
    const db = (
      await w.env.pool.query<{ amount: string; payout: string; multiplier: string; id: string }>(
        'SELECT id, amount::text, payout::text, multiplier::text FROM bets',
      )
    ).rows[0]!;
    expect(bet).toMatchObject({
      id: db.id,
      userId: alice.id,
      amount: db.amount,
      payout: db.payout,
      multiplier: db.multiplier,
      status: 'SETTLED',
      gameId: 1,
      errorDetails: null,
      createdAt: '2026-03-01T10:00:01.000Z',
      settledAt: '2026-03-01T10:00:01.000Z',
    });
    expect(typeof bet.amount).toBe('string');
  });

  it('when tips are exported, then text is JSON-escaped and reads back unchanged', async () => {
    const { body } = await exported('tips', 'ndjson');
    const [tip, second] = body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(tip).toMatchObject({ notes: NOTES, amount: '0.07', recipientUserId: bob.id, type: 'ADD_BALANCE', tag: null });
    expect(second).toMatchObject({ notes: LINES, amount: '0.01', recipientUserId: alice.id });
  });
});

describe('exportToFile', () => {
  it('when an export is written to a file, then the manifest gives kind, format, range, rows, bytes, SHA-256 and columns of that file', async () => {
    const file = join(dir, 'deposits.csv');
    const now = new Date('2026-04-01T12:00:00.000Z');
    const result = await exportToFile({
      pool: w.env.pool,
      kind: 'deposits',
      format: 'csv',
      from: '2026-03-01T00:00:00Z',
      to: '2026-03-02T00:00:00+00:00',
      file,
      now: () => now,
    });
    const content = await readFile(file);
    const manifest = JSON.parse(await readFile(`${file}.manifest.json`, 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      kind: 'deposits',
      format: 'csv',
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-02T00:00:00.000Z',
      knownFrom: null,
      knownTo: null,
      rangeAxes: {
        from: 'business time (effectiveAt)',
        to: 'business time (effectiveAt)',
        knownFrom: 'recording time (createdAt)',
        knownTo: 'recording time (createdAt)',
      },
      rows: 2,
      bytes: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      columns: exportColumns('deposits').map((c) => c.name),
      formulaGuard: CSV_FORMULA_GUARD,
      createdAt: now.toISOString(),
    });
    expect(result).toMatchObject({ rows: 2, file, manifestFile: `${file}.manifest.json` });
    expect(parseCsv(content.toString('utf8'))).toHaveLength(3);
    expect((await readdir(dir)).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });
});

describe('runExport when the database fails mid-stream', () => {
  let db: TestDb;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDb('export_abort');
    pool = db.pool();
    pool.on('error', () => undefined);
    await migrateNonCore(pool);
    await pool.query(`INSERT INTO bets (id, user_id, round_id, game_id, game_name, game_slug, game_type, game_provider, currency_id, amount,
        usd_amount, payout, usd_payout, status, error_details, transaction_id, created_at, updated_at, effective_at)
      SELECT 'b' || g, 1, 'r' || g, 1, 'Dice', 'dice', 'ORIGINALS', 'House', 'DBC', 1, 1, 0, 0, 'ERROR', repeat('x', 2000), 't' || g,
        '2026-01-01'::timestamptz + g * interval '1 second', '2026-01-01'::timestamptz + g * interval '1 second',
        '2026-01-01'::timestamptz + g * interval '1 second'
      FROM generate_series(1, 20000) g`); // 40 MB of CSV: more than the socket buffers hold, so the server is still sending
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('when the connection is killed after the first chunk, then the export rejects, the output is destroyed (never ended) and the pool still works', async () => {
    const admin = db.pool({ max: 1 });
    let ended = false;
    let written = 0;
    const output = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.length;
        if (written === chunk.length) {
          // First chunk: end the export's backend (held back by this writer), then let the export carry on.
          admin
            .query(
              `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
            WHERE l.relation = $1::regclass AND a.backend_type = 'client backend' AND l.pid <> pg_backend_pid()`,
              [`"${db.schema}".bets`],
            )
            .then(() => done(), done);
        } else done();
      },
      final(done) {
        ended = true;
        done();
      },
    });
    await expect(runExport({ pool, kind: 'bets', format: 'csv', output })).rejects.toThrow();
    expect(output.destroyed).toBe(true);
    expect(ended).toBe(false);
    expect(written).toBeGreaterThan(0);
    expect((await pool.query<{ n: string }>('SELECT count(*) AS n FROM bets')).rows[0]!.n).toBe('20000');
  });

  it('when the reader stalls longer than stallTimeoutMs, then the export ends with an error and the statement stops', async () => {
    let written = 0;
    const stalled = new Writable({
      write(chunk: Buffer) {
        written += chunk.length; /* never calls back */
      },
    });
    await expect(runExport({ pool, kind: 'bets', format: 'ndjson', output: stalled, stallTimeoutMs: 300 })).rejects.toThrow(/stalled/);
    expect(stalled.destroyed).toBe(true);
    expect(written).toBeGreaterThan(0);
    const running = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
      WHERE l.relation = $1::regclass AND a.backend_type = 'client backend' AND l.pid <> pg_backend_pid()`,
          [`"${db.schema}".bets`],
        )
      ).rows[0]!.n;
    await eventually(async () => expect(await running()).toBe(0));
  });
});
