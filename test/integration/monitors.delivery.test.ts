import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START, type Position, type RecordedEvent } from '../../src/infra/event-store/event-store.port.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { monitorsProjection } from '../../src/monitors/monitors.projection.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, deliverDue, signBody, startDeliveryWorker } from '../../src/monitors/delivery.worker.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';
import { must as right } from '../support/realtime-ledger.js';
import { eventually, eventuallyTrue } from '../support/eventually.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const SECRET = 'whsec-test-1';

type Mode = 'fail' | 'hang' | 'ok';
type Received = Readonly<{ id: string; body: string; signature: string }>;

/** A stand-in webhook receiver: answers 500, never answers, or records and answers 200. */
const receiver = async () => {
  let mode: Mode = 'fail';
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'hang') return void hanging.push(res);
      if (mode === 'fail') return void res.writeHead(500).end();
      const id = String(req.headers[DELIVERY_ID_HEADER]);
      received.push({ id, body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers[SIGNATURE_HEADER]) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    set: (m: Mode) => void (mode = m),
    close: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((r) => r.destroy());
        server.close(() => resolve());
      }),
  };
};

describe('monitors: an alert per qualifying fact, delivered at least once to signed webhooks across failures and restarts', () => {
  let env: LedgerEnv;
  let now = new Date('2026-03-01T10:00:00Z');
  const clock = () => now;
  const advance = (ms: number) => void (now = new Date(now.getTime() + ms));
  let projector: Projector;
  let hook: Awaited<ReturnType<typeof receiver>>;
  // A receiver's answer gets a bound far above what it takes even on a loaded machine (a 500 that came back after a
  // short bound would be recorded as a timeout); only the step that tests the timeout uses a short one.
  const opts = (timeoutMs = 10_000) => ({ pool: env.pool, clock, timeoutMs, baseDelayMs: 1_000, maxDelayMs: 60_000, pollMs: 20 });

  beforeAll(async () => {
    env = await createLedgerEnv('monitors', { clock });
    hook = await receiver();
    await env.pool.query(
      `INSERT INTO monitors (type, threshold_usd, created_by, created_at) VALUES ('bet-win-over', '100', 1, '2026-01-01'),
        ('withdrawal-over', '1000', 1, '2026-01-01')`,
    );
    await env.pool.query(
      `INSERT INTO monitor_webhooks (monitor_type, url, secret, created_by, created_at)
       VALUES ('bet-win-over', $1, $2, 1, '2026-01-01'), ('bet-win-over', 'http://127.0.0.1:9/closed', 'other', 1, '2026-01-01')`,
      [hook.url, SECRET],
    );
    projector = startProjector({ store: env.store, pool: env.pool, projections: [monitorsProjection] });
  });
  afterAll(async () => {
    await projector?.stop();
    await hook?.close();
    await env.close();
  });

  const win = async (userId: number, id: string, payout: string) => {
    right(await env.ledger.placeBet({ id, userId, roundId: `r-${id}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '10' }));
    right(await env.ledger.settleBet(id, { payout }));
  };
  const alerts = async () =>
    (await env.pool.query<{ subject: string }>('SELECT subject FROM monitor_alerts ORDER BY id')).rows.map((r) => r.subject);
  const delivery = async (webhookUrl: string) =>
    (
      await env.pool.query<{ attempts: number; last_error: string | null; delivered_at: Date | null }>(
        `SELECT d.attempts, d.last_error, d.delivered_at FROM monitor_deliveries d JOIN monitor_webhooks w ON w.id = d.webhook_id
         WHERE w.url = $1 ORDER BY d.id`,
        [webhookUrl],
      )
    ).rows;

  it('fires once per big win, retries with backoff, disables a target failing for a day, and loses nothing over a restart', async () => {
    await fundWallet(env.ledger, 8001, '1000');
    await win(8001, 'b-small', '50');
    await win(8001, 'b-big', '500');
    await eventually(async () => expect(await alerts()).toEqual(['bet:b-big']));
    expect(await delivery(hook.url)).toHaveLength(1);

    // A failure, then a timeout, each put off by the doubling delay on the worker's clock.
    expect(await deliverDue(opts())).toBe(2);
    expect((await delivery(hook.url))[0]).toMatchObject({ attempts: 1, last_error: 'HTTP 500', delivered_at: null });
    expect(await deliverDue(opts())).toBe(0);
    hook.set('hang');
    advance(1_000);
    expect(await deliverDue(opts(300))).toBe(2);
    expect((await delivery(hook.url))[0]).toMatchObject({ attempts: 2, delivered_at: null });
    advance(1_999);
    expect(await deliverDue(opts())).toBe(0);

    // The receiver is back; a worker is stopped before it is due, a new alert arrives, a new worker delivers both.
    hook.set('ok');
    const first = startDeliveryWorker(opts());
    await first.stop();
    await win(8001, 'b-big-2', '300');
    await eventually(async () => expect(await alerts()).toEqual(['bet:b-big', 'bet:b-big-2']));
    advance(1);
    const second = startDeliveryWorker(opts());
    await eventuallyTrue('both delivered', async () => (await delivery(hook.url)).every((d) => d.delivered_at !== null));
    await second.stop();

    const ids = new Set(hook.received.map((r) => r.id));
    expect(ids.size).toBe(2);
    for (const r of hook.received) {
      expect(r.signature).toBe(signBody(SECRET, r.body));
      expect(JSON.parse(r.body)).toMatchObject({ deliveryId: r.id, type: 'bet-win-over' });
    }
    expect(hook.received.map((r) => (JSON.parse(r.body) as { subject: string }).subject).sort()).toEqual(['bet:b-big', 'bet:b-big-2']);

    // The closed port keeps failing: a day after its first failure it is disabled and no longer tried.
    advance(86_400_000);
    await deliverDue(opts());
    const closed = await env.pool.query('SELECT failing_since, disabled_at FROM monitor_webhooks WHERE secret = $1', ['other']);
    expect(closed.rows[0].disabled_at).not.toBeNull();
    advance(86_400_000);
    expect(await deliverDue(opts())).toBe(0);
  });

  it('a replay of every fact fires nothing twice', async () => {
    const before = await alerts();
    const events: RecordedEvent[] = [];
    for (let after: Position = START; ;) {
      const batch = await env.store.readAll({ after, maxCount: 1000 });
      if (batch.length === 0) break;
      events.push(...batch);
      after = batch.at(-1)!.position;
    }
    for (const sql of monitorsProjection.project(events)) await env.pool.query(sql.text, sql.values);
    expect(await alerts()).toEqual(before);
  });
});
