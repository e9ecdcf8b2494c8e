import { createHash } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportColumns, runExport } from '../../src/audit/export.js';
import { parseCsv } from '../support/csv.js';
import { eventually } from '../support/eventually.js';
import { createListsEnv, seedBulkTransactions, type ListsEnv } from '../support/lists-seed.js';

type Download = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  trailers: NodeJS.Dict<string>;
  /** The whole message arrived, up to the terminating chunk. */
  complete: boolean;
  error?: Error;
};

/**
 * GET with node:http (fetch does not expose trailers). `onFirstChunk` runs with the response paused
 * after the first chunk: the server is then held back by backpressure.
 */
const download = (base: string, path: string, token?: string, onFirstChunk?: () => Promise<void>): Promise<Download> =>
  new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = (error?: Error) => {
        if (settled) return;
        settled = true;
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: Buffer.concat(chunks),
          trailers: res.trailers,
          complete: res.complete,
          ...(error ? { error } : {}),
        });
      };
      let first = true;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (first && onFirstChunk) {
          first = false;
          res.pause();
          onFirstChunk().then(() => res.resume(), reject);
        }
      });
      res.on('end', () => done());
      res.on('error', (error) => done(error));
      res.on('close', () => done());
    });
    req.on('error', reject);
  });

/** The client backends reading table $1 (a parallel plan's workers are left out: they end with their leader). */
const EXPORT_BACKENDS = `SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid)
  WHERE l.relation = $1::regclass AND a.backend_type = 'client backend' AND l.pid <> pg_backend_pid()`;

let w: ListsEnv;
let viewer: string;
let alice: { id: number };

beforeAll(async () => {
  w = await createListsEnv('export_download');
  alice = await w.env.makeUser();
  viewer = await w.tokenFor({ roles: ['User', 'SuperAdmin'] });
  w.at('2026-05-01T08:00:00.000Z');
  await w.deposit(alice.id, '250.75');
  w.at('2026-05-01T08:30:00.000Z');
  await w.bet(alice.id, '10', { payout: '25.5' });
  w.at('2026-05-02T08:00:00.000Z');
  await w.tip(alice.id, '1.01', 'loyal, "valued" player');
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('GET /accounting/export', () => {
  it("when an admin with transaction.view downloads transactions as CSV, then the body is the export's bytes and the trailers give its rows, bytes and SHA-256", async () => {
    const reply = await download(
      w.env.adminUrl,
      '/accounting/export?kind=transactions&format=csv&from=2026-05-01T00:00:00Z&to=2026-06-01T00:00:00Z',
      viewer,
    );
    expect(reply.status).toBe(200);
    expect(reply.complete).toBe(true);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(reply.headers['content-disposition']).toBe(
      'attachment; filename="transactions-2026-05-01T00-00-00-000Z-2026-06-01T00-00-00-000Z.csv"',
    );
    expect(reply.headers['transfer-encoding']).toBe('chunked');
    expect(reply.headers.trailer).toBe('X-Export-Rows, X-Export-Bytes, X-Export-Sha256');
    const [header, ...rows] = parseCsv(reply.body.toString('utf8'));
    expect(header).toEqual(exportColumns('transactions').map((c) => c.name));
    expect(rows.map((r) => [r[3], r[4]])).toEqual([
      ['DEPOSIT', '250.75'],
      ['BET', '-10'],
      ['BET_PAYOUT', '25.5'],
      ['ADMIN_TIP', '1.01'],
    ]);
    expect(reply.trailers).toEqual({
      'x-export-rows': '4',
      'x-export-bytes': String(reply.body.length),
      'x-export-sha256': createHash('sha256').update(reply.body).digest('hex'),
    });
    // The same bytes as the CLI's export of the same range.
    const chunks: Buffer[] = [];
    await runExport({
      pool: w.env.pool,
      kind: 'transactions',
      format: 'csv',
      from: '2026-05-01T00:00:00Z',
      to: '2026-06-01T00:00:00Z',
      output: new Writable({
        write(c: Buffer, _e, cb) {
          chunks.push(c);
          cb();
        },
      }),
    });
    expect(Buffer.concat(chunks).equals(reply.body)).toBe(true);
  });

  it('when tips are downloaded as NDJSON for a range, then only that range comes, as JSON lines', async () => {
    const reply = await download(w.env.adminUrl, '/accounting/export?kind=tips&format=ndjson&from=2026-05-02T00:00:00Z', viewer);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(reply.headers['content-disposition']).toBe('attachment; filename="tips-2026-05-02T00-00-00-000Z-all.ndjson"');
    const lines = reply.body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        amount: '1.01',
        notes: 'loyal, "valued" player',
        recipientUserId: alice.id,
        createdAt: '2026-05-02T08:00:00.000Z',
      }),
    ]);
    expect(reply.trailers['x-export-rows']).toBe('1');
    const empty = await download(w.env.adminUrl, '/accounting/export?kind=bets&format=ndjson&to=2026-01-01T00:00:00Z', viewer);
    expect({ status: empty.status, body: empty.body.length, rows: empty.trailers['x-export-rows'] }).toEqual({
      status: 200,
      body: 0,
      rows: '0',
    });
  });

  it('when the kind, format or range is bad, then 400 VALIDATION_FAILED names the field and nothing is streamed', async () => {
    const fields = async (query: string) => {
      const reply = await w.get(`/accounting/export${query}`, viewer);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      return (reply.body.details as Array<{ field: string }>).map((d) => d.field);
    };
    expect(await fields('')).toEqual(['query.kind']);
    expect(await fields('?kind=users')).toEqual(['query.kind']);
    expect(await fields('?kind=bets&format=xlsx')).toEqual(['query.format']);
    expect(await fields('?kind=bets&from=2026-13-01')).toEqual(['query.from']);
    expect(await fields('?kind=bets&from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z')).toEqual(['query.to']);
  });

  it('when each kind is asked by nobody, a user, an admin without its list permission and one with it, then 401 / 403 / 403 / 200', async () => {
    const needs = {
      transactions: undefined,
      deposits: 'deposits.view',
      withdrawals: 'withdrawals.view',
      bets: 'user.bets.view',
      tips: 'admin-tips.view',
    } as const;
    const user = await w.tokenFor({ roles: ['User'] });
    // transaction.view alone opened every kind once: it now opens none (the accounting log is the SuperAdmin's).
    const viewerOfStats = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['transaction.view'] });
    for (const [kind, permission] of Object.entries(needs)) {
      const path = `/accounting/export?kind=${kind}`;
      expect([kind, (await download(w.env.adminUrl, path)).status]).toEqual([kind, 401]);
      expect([kind, (await download(w.env.adminUrl, path, user)).status]).toEqual([kind, 403]);
      expect([kind, (await download(w.env.adminUrl, path, viewerOfStats)).status]).toEqual([kind, 403]);
      if (permission) {
        const holder = await w.tokenFor({ roles: ['User', 'Admin'], permissions: [permission] });
        expect([kind, (await download(w.env.adminUrl, path, holder)).status]).toEqual([kind, 200]);
      }
      expect([kind, (await download(w.env.adminUrl, path, viewer)).status]).toEqual([kind, 200]);
    }
  });

  it('when the database connection dies mid-download, then the response is cut off without its last chunk and trailers, and the server carries on', async () => {
    // 40 MB of rows in a year no other test reads: more than the socket buffers hold, so the server is held back while the client waits.
    await seedBulkTransactions(w.env.pool, alice.id);
    const table = `"${w.env.db.schema}".transactions`;
    const reply = await download(w.env.adminUrl, '/accounting/export?kind=transactions&from=2031-01-01T00:00:00Z', viewer, async () => {
      const { rows } = await w.env.pool.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM (${EXPORT_BACKENDS}) b`, [
        table,
      ]);
      expect(rows).toEqual([{ ok: true }]);
    });
    expect(reply.status).toBe(200);
    expect(reply.complete).toBe(false);
    expect(reply.trailers['x-export-sha256']).toBeUndefined();
    expect(reply.body.length).toBeGreaterThan(0);
    const after = await download(w.env.adminUrl, '/accounting/export?kind=tips', viewer);
    expect({ status: after.status, complete: after.complete, rows: after.trailers['x-export-rows'] }).toEqual({
      status: 200,
      complete: true,
      rows: '1',
    });
  });

  it("when the client goes away mid-download, then the export's statement ends and its connection is given up", async () => {
    const table = `"${w.env.db.schema}".transactions`;
    const holders = async () =>
      (await w.env.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${EXPORT_BACKENDS}) b`, [table])).rows[0]!.n;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(
        `${w.env.adminUrl}/accounting/export?kind=transactions&from=2031-01-01T00:00:00Z`,
        { headers: { authorization: `Bearer ${viewer}` } },
        (res) => {
          res.once('data', () => {
            holders()
              .then((n) => {
                expect(n).toBe(1);
                req.destroy();
                resolve();
              })
              .catch(reject);
          });
        },
      );
      req.on('error', () => undefined);
    });
    await eventually(async () => expect(await holders()).toBe(0));
  });
});
