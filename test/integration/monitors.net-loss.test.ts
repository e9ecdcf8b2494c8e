import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START, type Position, type RecordedEvent } from '../../src/infra/event-store/event-store.port.js';
import { monitorsProjection } from '../../src/monitors/monitors.projection.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';
import { eventually } from '../support/eventually.js';
import { must as right } from '../support/realtime-ledger.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };

describe("monitors: a player's net loss over a window fires on each false-to-true edge only", () => {
  let env: LedgerEnv;
  let now = new Date('2026-05-01T10:00:00Z');
  const clock = () => now;
  let projector: Projector;
  beforeAll(async () => {
    env = await createLedgerEnv('monitors_net_loss', { clock });
    await env.pool.query(
      `INSERT INTO monitors (type, threshold_usd, window_hours, created_by, created_at)
       VALUES ('player-net-loss-over', '100', 24, 1, '2026-01-01')`,
    );
    await env.pool.query(
      `INSERT INTO monitor_webhooks (monitor_type, url, secret, created_by, created_at)
       VALUES ('player-net-loss-over', 'http://127.0.0.1:9/hook', 'a-secret-of-16-chars', 1, '2026-01-01')`,
    );
    projector = startProjector({ store: env.store, pool: env.pool, projections: [monitorsProjection] });
  });
  afterAll(async () => {
    await projector?.stop();
    await env.close();
  });

  let n = 0;
  const bet = async (stake: string, payout: string) => {
    const id = `nl-${++n}`;
    right(
      await env.ledger.placeBet({ id, userId: 9001, roundId: `r-${id}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: stake }),
    );
    right(await env.ledger.settleBet(id, { payout }));
  };
  const settledSeen = (count: number) =>
    eventually(async () => {
      const { rows } = await env.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_net_loss');
      expect(rows[0]!.n).toBe(count);
    });
  const alerts = async () =>
    (await env.pool.query<{ amount: string }>('SELECT trim_scale(amount_usd)::text AS amount FROM monitor_alerts ORDER BY id')).rows.map(
      (r) => r.amount,
    );

  it('fires when the loss crosses the threshold, not while it stays over, again after it fell back, and never on replay', async () => {
    await fundWallet(env.ledger, 9001, '10000');
    await bet('60', '0'); // loss 60
    await bet('60', '0'); // 120: over, fires
    await bet('10', '0'); // 130: still over
    await settledSeen(3);
    expect(await alerts()).toEqual(['120']);
    await bet('10', '100'); // 40: under
    await bet('70', '0'); // 110: over again, fires
    await settledSeen(5);
    expect(await alerts()).toEqual(['120', '110']);
    now = new Date(now.getTime() + 25 * 3_600_000); // the window has passed: the next loss is seen under the threshold
    await bet('50', '0');
    await settledSeen(6);
    await bet('60', '0'); // 110 within the window: an edge again
    await settledSeen(7);
    expect(await alerts()).toEqual(['120', '110', '110']);
    await bet('1', '0'); // 111: still over, nothing
    await settledSeen(8);
    expect(await alerts()).toEqual(['120', '110', '110']);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM monitor_deliveries')).rows[0].n).toBe(3);

    const events: RecordedEvent[] = [];
    for (let after: Position = START; ;) {
      const batch = await env.store.readAll({ after, maxCount: 1000 });
      if (batch.length === 0) break;
      events.push(...batch);
      after = batch.at(-1)!.position;
    }
    for (const sql of monitorsProjection.project(events)) await env.pool.query(sql.text, sql.values);
    expect(await alerts()).toEqual(['120', '110', '110']);
  });
});
