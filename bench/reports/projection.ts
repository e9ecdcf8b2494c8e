import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { RecordedEvent } from '../../src/infra/event-store/event-store.port.js';
import type { Projection } from '../../src/projections/projection.js';
import { betsProjection } from '../../src/wallet/bets/bets.projection.js';
import { financeReportsProjection } from '../../src/finance/reports/finance-reports.projection.js';
import { round } from '../lib/stats.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'House' } };

/** `n` bet events (placed, then settled) of 1,000 wallets, in batches of 500 as the projector reads them. */
const betEvents = (n: number, prefix: string): RecordedEvent[][] => {
  const events: RecordedEvent[] = [];
  const at = new Date().toISOString();
  for (let i = 0; i < n / 2; i++) {
    const userId = 1 + (i % 1000);
    const betId = `${prefix}-${i}`;
    const leg = (account: string, amount: string) => ({ account, currencyId: 'USDT', amount });
    const common = { transactionId: randomUUID(), currencyId: 'USDT', betId, amount: '10', usdAmount: '10', at, effectiveAt: at };
    const base = { streamId: `wallet-${userId}`, metadata: {}, createdAt: new Date() };
    const position = { commit: BigInt(2 * i + 1), prepare: BigInt(2 * i + 1) };
    events.push({
      ...base,
      id: randomUUID(),
      revision: BigInt(2 * i),
      position,
      type: 'BetPlaced',
      data: {
        ...common,
        roundId: `r-${betId}`,
        gameId: 1,
        gameIdentity: game,
        balanceAfter: '0',
        postings: [leg(`user:${userId}`, '-10'), leg('house:bets', '10')],
      },
    } as unknown as RecordedEvent);
    events.push({
      ...base,
      id: randomUUID(),
      revision: BigInt(2 * i + 1),
      position: { commit: position.commit + 1n, prepare: position.prepare + 1n },
      type: 'BetSettled',
      data: {
        ...common,
        transactionId: randomUUID(),
        placedAt: at,
        payout: '15',
        usdPayout: '15',
        multiplier: '1.5',
        balanceAfter: '5',
        postings: [leg('house:payouts', '-15'), leg(`user:${userId}`, '15')],
      },
    } as unknown as RecordedEvent);
  }
  const batches: RecordedEvent[][] = [];
  for (let i = 0; i < events.length; i += 500) batches.push(events.slice(i, i + 500));
  return batches;
};

const apply = async (pool: pg.Pool, projection: Projection, batches: RecordedEvent[][]): Promise<number> => {
  const client = await pool.connect();
  try {
    const t0 = performance.now();
    for (const batch of batches) {
      await client.query('BEGIN');
      for (const s of projection.project(batch.filter((e) => projection.handles.includes(e.type)))) await client.query(s.text, s.values);
      await client.query('COMMIT');
    }
    return performance.now() - t0;
  } finally {
    client.release();
  }
};

/** The finance read model's cost per 1,000 bet events, next to the bets read model's on the same events. */
export const benchProjection = async (pool: pg.Pool, n: number, log: (line: string) => void) => {
  const finance = await apply(pool, financeReportsProjection, betEvents(n, 'fin'));
  const bets = await apply(pool, betsProjection, betEvents(n, 'bets'));
  const result = { events: n, financeMsPer1000: round((finance / n) * 1000), betsMsPer1000: round((bets / n) * 1000) };
  log(`projection: finance read model ${result.financeMsPer1000} ms per 1,000 bet events; bets read model ${result.betsMsPer1000} ms`);
  return result;
};
