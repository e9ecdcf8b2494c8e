import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLedgerCli } from '../../src/audit/cli/ledger-cli.js';
import { startSealer } from '../../src/audit/seal.js';
import { verifyLedger, type Difference, type VerifyProgress } from '../../src/audit/verify.js';
import { createLedgerEnv, type LedgerEnv } from '../support/ledger-env.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { playScenario, projectAll, runLedgerScript, untilVisible } from '../support/audit-ledger.js';

const ALICE = 101;
const BOB = 202;
const KEY = randomBytes(32);

/** A ledger after the scenario: every event projected and sealed. */
const sealedLedger = async (label: string): Promise<LedgerEnv> => {
  const env = await createLedgerEnv(label);
  await playScenario(env.ledger, { alice: ALICE, bob: BOB });
  await projectAll(env.store, env.pool);
  const sealer = startSealer({ store: env.store, pool: env.pool, key: KEY, checkpointEvery: 5, checkpointIntervalMs: 60_000 });
  try {
    await sealer.caughtUp();
  } finally {
    await sealer.stop();
  }
  return env;
};

const verify = (env: LedgerEnv, onProgress?: (p: VerifyProgress) => void) =>
  verifyLedger({
    store: env.store,
    pool: env.pool,
    seals: { key: KEY, checkpointEvery: 5 },
    batchSize: 4,
    ...(onProgress ? { onProgress } : {}),
  });

/** One event of a wallet: where it is. */
const eventAt = async (env: LedgerEnv, userId: number, type: string, nth = 0) => {
  const { rows } = await env.pool.query<{ revision: string; position: string; event_id: string }>(
    `SELECT stream_revision::text AS revision, transaction_id::text || '/' || global_position AS position, event_id::text AS event_id
     FROM events WHERE stream_id = $1 AND type = $2 ORDER BY stream_revision OFFSET $3 LIMIT 1`,
    [`wallet-${userId}`, type, nth],
  );
  if (!rows[0]) throw new Error(`no ${type} #${nth} in wallet-${userId}`);
  return rows[0];
};

const ours = (differences: readonly Difference[]) => differences.filter((d) => d.kind !== 'seal');

describe('verify on a clean ledger', () => {
  let env: LedgerEnv;
  beforeAll(async () => {
    env = await sealedLedger('audit_verify_clean');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('when nothing was tampered with, then it passes with no difference, having folded every event and reported progress', async () => {
    const progress: VerifyProgress[] = [];
    const report = await verify(env, (p) => progress.push(p));
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    const total = Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
    expect(report).toMatchObject({ events: total, streams: 2, sealsChecked: true });
    expect(progress.filter((p) => p.phase === 'events').at(-1)).toEqual({ phase: 'events', done: total, total });
    expect(new Set(Object.values(report.readModels))).toEqual(new Set([report.head]));
  });

  it('when the projector is behind, then each read model is compared at its own checkpoint: no false alarm', async () => {
    await env.ledger.tip({ recipientUserId: ALICE, adminUserId: 9_000, currencyId: 'USDT', amount: '1', notes: 'not projected yet' });
    await untilVisible(env.store, env.pool);
    const report = await verifyLedger({ store: env.store, pool: env.pool, seals: false });
    expect(report.differences).toEqual([]);
    expect(report.readModels['wallet-balances']).not.toBe(report.head);
    expect(report.sealsChecked).toBe(false);
  });

  it('when `npm run ledger -- export` is given a kind and a file, then it delegates to the export: the file, its manifest and a summary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledger-export-'));
    try {
      const file = join(dir, 'tips.ndjson');
      const out: string[] = [];
      const io = {
        out: (l: string) => out.push(l),
        err: (l: string) => out.push(l),
        stdout: new PassThrough(),
        progressStream: new PassThrough(),
      };
      const code = await runLedgerCli(
        ['export', '--kind', 'tips', '--format', 'ndjson', '--out', file, '--schema', env.db.schema],
        { DATABASE_URL: TEST_DATABASE_URL },
        io,
      );
      expect(out).toEqual([
        expect.stringMatching(
          new RegExp(`^exported 2 tips rows \\(\\d+ bytes, sha256 [0-9a-f]{64}\\) to ${file}; manifest ${file}.manifest.json$`),
        ),
      ]);
      expect(code).toBe(0);
      const lines = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { amount: string });
      expect(lines.map((l) => l.amount).sort()).toEqual(['100', '30.5']);
      const bad = await runLedgerCli(['export', '--kind', 'nope', '--schema', env.db.schema], { DATABASE_URL: TEST_DATABASE_URL }, io);
      expect(bad).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when run as `npm run ledger -- verify` in a child process, then it exits 0 and says OK', async () => {
    const run = await runLedgerScript(['verify', '--schema', env.db.schema], {
      DATABASE_URL: TEST_DATABASE_URL,
      LEDGER_SEAL_KEY: KEY.toString('hex'),
    });
    expect(run.stdout).toMatch(/OK: no differences/);
    expect(run.code).toBe(0);
  });
});

describe('verify after tampering', () => {
  const envs: LedgerEnv[] = [];
  const fresh = async (label: string) => {
    const env = await sealedLedger(label);
    envs.push(env);
    return env;
  };
  afterAll(async () => {
    await Promise.all(envs.map((e) => e.close()));
  });

  it('when the amount of a posting is edited in the event store, then it fails naming the stream, revision and position of that event', async () => {
    const env = await fresh('audit_verify_edit');
    const bet = await eventAt(env, ALICE, 'BetPlaced');
    // The user's leg of the stake: -0.5 becomes -0.05 (the house leg is left alone).
    await env.pool.query(`UPDATE events SET data = jsonb_set(data, '{postings,0,amount}', '"-0.05"') WHERE event_id = $1`, [bet.event_id]);
    const report = await verify(env);
    expect(report.ok).toBe(false);
    const place = { streamId: `wallet-${ALICE}`, revision: bet.revision, position: bet.position, eventId: bet.event_id };
    expect(report.differences).toContainEqual(
      expect.objectContaining({ kind: 'postings-unbalanced', ...place, detail: 'postings sum to 0.45 BTC, not zero' }),
    );
    expect(report.differences).toContainEqual(expect.objectContaining({ kind: 'amount-mismatch', ...place }));
    expect(report.differences).toContainEqual(
      expect.objectContaining({ kind: 'trial-balance', where: 'currency BTC', detail: 'all accounts sum to 0.45 BTC, not zero' }),
    );
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        kind: 'read-model',
        table: 'wallet_balances',
        row: `user_id=${ALICE}, currency_id=BTC`,
        detail: 'balance 1.7 in the read model, the events give 2.15',
      }),
    );
    // The seals' own findings are part of the report (their details are src/audit/seal.ts's to test).
    expect(report.differences.some((d) => d.kind === 'seal')).toBe(true);
    const unsealed = await verifyLedger({ store: env.store, pool: env.pool, seals: false });
    expect(unsealed.differences.filter((d) => d.kind === 'seal')).toEqual([]);
    expect(ours(unsealed.differences)).toEqual(ours(report.differences));
  });

  it('when only the stated amount of an event is edited, then the mismatch with its postings is named', async () => {
    const env = await fresh('audit_verify_stated');
    const tip = await eventAt(env, ALICE, 'AdminTipCredited');
    await env.pool.query(`UPDATE events SET data = jsonb_set(data, '{amount}', '"1000"') WHERE event_id = $1`, [tip.event_id]);
    const report = await verify(env);
    expect(ours(report.differences)).toEqual([
      expect.objectContaining({
        kind: 'amount-mismatch',
        revision: tip.revision,
        position: tip.position,
        detail: "the user's postings move 100 USDT, the event states 1000 USDT",
      }),
      expect.objectContaining({
        kind: 'read-model',
        table: 'admin_tips',
        row: 'type=ADD_BALANCE, currency_id=USDT',
        detail: 'sum(amount) 100, the events give 1000',
      }),
    ]);
  });

  it('when an event is deleted from the middle of a stream, then it fails naming the missing revision of that stream', async () => {
    const env = await fresh('audit_verify_delete');
    const settled = await eventAt(env, ALICE, 'BetSettled');
    await env.pool.query('DELETE FROM events WHERE event_id = $1', [settled.event_id]);
    const report = await verify(env);
    expect(report.ok).toBe(false);
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        kind: 'stream-gap',
        streamId: `wallet-${ALICE}`,
        revision: settled.revision,
        detail: `revision ${settled.revision} is missing`,
      }),
    );
    const next = String(Number(settled.revision) + 1);
    expect(report.differences).toContainEqual(
      expect.objectContaining({ kind: 'balance-after', streamId: `wallet-${ALICE}`, revision: next }),
    );
    expect(report.differences).toContainEqual(expect.objectContaining({ kind: 'read-model', table: 'bets', row: 'status=SETTLED' }));
  });

  it('when the last event of a stream is deleted, then the streams head no longer matches and the stream is named', async () => {
    const env = await fresh('audit_verify_delete_last');
    await env.pool.query(
      `DELETE FROM events WHERE stream_id = $1 AND stream_revision = (SELECT max(stream_revision) FROM events WHERE stream_id = $1)`,
      [`wallet-${BOB}`],
    );
    const report = await verify(env);
    const last = (await env.pool.query<{ revision: string }>('SELECT revision::text FROM streams WHERE stream_id = $1', [`wallet-${BOB}`]))
      .rows[0]!.revision;
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        kind: 'stream-head',
        streamId: `wallet-${BOB}`,
        table: 'streams',
        detail: `streams row says revision ${last}, the last event is revision ${Number(last) - 1}`,
      }),
    );
  });

  it('when a forged event is inserted into the event store, then it fails naming the forged event and its stream', async () => {
    const env = await fresh('audit_verify_insert');
    const head = (await env.pool.query<{ revision: string }>('SELECT revision::text FROM streams WHERE stream_id = $1', [`wallet-${BOB}`]))
      .rows[0]!.revision;
    const forged = await env.pool.query<{ position: string; event_id: string; revision: string }>(
      `
      INSERT INTO events (stream_id, stream_revision, event_id, type, data)
      VALUES ($1, $2::bigint + 1, gen_random_uuid(), 'AdminTipCredited', jsonb_build_object(
        'tipId', 777, 'currencyId', 'ETH', 'amount', '10', 'usdAmount', '0', 'tag', null, 'notes', '', 'adminUserId', 1, 'operationKey', 'forged',
        'transactionId', 'tip_777', 'balanceAfter', '13.25', 'at', '2026-01-01T00:00:00.000Z',
        'postings', jsonb_build_array(jsonb_build_object('account', 'house:admin-tips', 'currencyId', 'ETH', 'amount', '-10'),
                                      jsonb_build_object('account', 'user:${BOB}', 'currencyId', 'ETH', 'amount', '10'))))
      RETURNING transaction_id::text || '/' || global_position AS position, event_id::text, stream_revision::text AS revision`,
      [`wallet-${BOB}`, head],
    );
    const f = forged.rows[0]!;
    await untilVisible(env.store, env.pool);
    const report = await verify(env);
    expect(report.ok).toBe(false);
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        kind: 'stream-head',
        streamId: `wallet-${BOB}`,
        detail: `streams row says revision ${head}, the last event is revision ${f.revision}`,
      }),
    );
    // The forgery is self-consistent (balanced, amount and balanceAfter agree): the streams head is what names it here.
    expect(report.differences.filter((d) => d.kind !== 'seal' && d.kind !== 'stream-head')).toEqual([]);
  });

  it('when a forged event copies an existing movement, then the duplicated transaction and the diverging balanceAfter are named', async () => {
    const env = await fresh('audit_verify_copy');
    const dep = await eventAt(env, ALICE, 'DepositCompleted');
    const next = await env.pool.query<{ revision: string; position: string }>(
      `
      WITH head AS (UPDATE streams SET revision = revision + 1 WHERE stream_id = $1 RETURNING revision)
      INSERT INTO events (stream_id, stream_revision, event_id, type, data)
      SELECT $1, (SELECT revision FROM head), gen_random_uuid(), type, data FROM events WHERE event_id = $2
      RETURNING stream_revision::text AS revision, transaction_id::text || '/' || global_position AS position`,
      [`wallet-${ALICE}`, dep.event_id],
    );
    await untilVisible(env.store, env.pool);
    const report = await verify(env);
    const copy = next.rows[0]!;
    expect(report.differences).toContainEqual(
      expect.objectContaining({ kind: 'duplicate-transaction', where: expect.stringMatching(/^transaction dep_/) }),
    );
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        kind: 'balance-after',
        streamId: `wallet-${ALICE}`,
        revision: copy.revision,
        position: copy.position,
      }),
    );
    expect(report.differences.filter((d) => d.kind === 'stream-head' || d.kind === 'stream-gap')).toEqual([]);
  });

  it('when a read-model row is changed by hand, then it fails naming the table and the row', async () => {
    const env = await fresh('audit_verify_read_model');
    await env.pool.query(`UPDATE wallet_balances SET balance = 1000 WHERE user_id = $1 AND currency_id = 'ETH'`, [BOB]);
    await env.pool.query(`UPDATE deposits SET status = 'FAILED' WHERE user_id = $1`, [BOB]);
    const report = await verify(env);
    expect(report.differences).toEqual([
      {
        kind: 'read-model',
        where: `table wallet_balances row (user_id=${BOB}, currency_id=ETH)`,
        table: 'wallet_balances',
        row: `user_id=${BOB}, currency_id=ETH`,
        detail: 'balance 1000 in the read model, the events give 3.25',
      },
      expect.objectContaining({ kind: 'read-model', table: 'deposits', row: 'status=COMPLETE', detail: '1 row, the events give 2' }),
      expect.objectContaining({ kind: 'read-model', table: 'deposits', row: 'status=FAILED', detail: '1 row, the events give 0' }),
    ]);

    const out: string[] = [];
    const io = {
      out: (l: string) => out.push(l),
      err: (l: string) => out.push(l),
      stdout: new PassThrough(),
      progressStream: new PassThrough(),
    };
    const code = await runLedgerCli(
      ['verify', '--schema', env.db.schema],
      { DATABASE_URL: TEST_DATABASE_URL, LEDGER_SEAL_KEY: KEY.toString('base64') },
      io,
    );
    expect(code).toBe(1);
    expect(out).toContain(
      `read-model: table wallet_balances row (user_id=${BOB}, currency_id=ETH): balance 1000 in the read model, the events give 3.25`,
    );
    expect(out.at(-1)).toBe('FAILED: 3 differences');

    const child = await runLedgerScript(['verify', '--schema', env.db.schema, '--json', '--no-seals'], { DATABASE_URL: TEST_DATABASE_URL });
    expect(child.code).toBe(1);
    expect((JSON.parse(child.stdout) as { ok: boolean; differences: Difference[] }).differences.map((d) => d.row)).toEqual([
      `user_id=${BOB}, currency_id=ETH`,
      'status=COMPLETE',
      'status=FAILED',
    ]);
  });
});

describe('npm run ledger: usage and connection errors', () => {
  const run = async (argv: string[], env: NodeJS.ProcessEnv = { DATABASE_URL: TEST_DATABASE_URL }) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLedgerCli(argv, env, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      stdout: new PassThrough(),
      progressStream: new PassThrough(),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('when asked for help, then the usage goes to stdout with exit 0; a bad command or option exits 2 with the reason', async () => {
    expect(await run(['help'])).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: npm run ledger -- <command>/) });
    expect(await run([])).toMatchObject({ code: 2, err: expect.stringMatching(/^usage:/) });
    expect(await run(['frobnicate'])).toMatchObject({ code: 2, err: expect.stringMatching(/^unknown command: frobnicate/) });
    expect(await run(['replay'])).toMatchObject({ code: 2, err: expect.stringMatching(/^replay needs --user <id>/) });
    expect(await run(['replay', '--user', '1.5'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^--user must be a positive integer/),
    });
    expect(await run(['balance', '--at', 'yesterday'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^--at must be an ISO 8601 timestamp/),
    });
    expect(await run(['verify', '--bogus'])).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown option '--bogus'/) });
    expect(await run(['verify', '--schema', 'x; DROP TABLE events'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^--schema must be a plain schema name/),
    });
  });

  it('when DATABASE_URL is missing, the seal key is unknown or the database is unreachable, then exit 2 naming the problem', async () => {
    expect(await run(['verify'], {})).toMatchObject({ code: 2, err: expect.stringMatching(/^DATABASE_URL is not set/) });
    expect(await run(['verify'], { DATABASE_URL: TEST_DATABASE_URL, DATA_DIR: '/nonexistent-audit-dir' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^no seal key: set LEDGER_SEAL_KEY/),
    });
    const down = await run(['balance'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    expect(down).toMatchObject({ code: 2, err: expect.stringMatching(/^ledger balance failed: .*ECONNREFUSED/) });
  });
});
