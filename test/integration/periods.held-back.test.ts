import { isLeft } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { StoreUnavailable } from '../../src/infra/event-store/event-store.port.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { createPeriods } from '../../src/periods/close-period.use-case.js';
import { PERIODS_STREAM } from '../../src/periods/periods.events.js';
import { ensureCalendar } from '../../src/periods/periods.queries.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';

/**
 * Another test file, or another service, may hold a transaction open in the same cluster: the events committed after it
 * began stay unreadable until it ends. The first close must wait for them, not decide the first period without them.
 */
describe('periods: the first close while an older transaction hides committed events', () => {
  let env: LedgerEnv;
  let now = new Date('2026-01-10T12:00:00Z');
  const clock = () => now;
  let projector: Projector;
  beforeAll(async () => {
    env = await createLedgerEnv('periods_held');
    await ensureCalendar(env.pool, { timeZone: 'UTC', unit: 'month' });
    projector = startProjector({ store: env.store, pool: env.pool, projections: allProjections });
  });
  afterAll(async () => {
    await projector?.stop();
    await env.close();
  });

  it('when January’s events are hidden behind an open transaction, then closing February waits and refuses; once visible, January is named next', async () => {
    const ledger = createLedger({ store: env.store, pool: env.pool, clock });
    const periodsWith = (reportTimeoutMs: number) =>
      createPeriods({ store: env.store, pool: env.pool, clock, calendar: { timeZone: 'UTC', unit: 'month' }, reportTimeoutMs });
    const other = await env.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()'); // an xid older than every event below
      await fundWallet(ledger, 8001, '50');
      now = new Date('2026-03-02T00:00:00Z');
      await expect(periodsWith(300).close('2026-02', 1)).rejects.toBeInstanceOf(StoreUnavailable);
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    expect(await env.store.readStream(PERIODS_STREAM)).toEqual([]); // nothing was closed out of order
    const skipping = await periodsWith(60_000).close('2026-02', 1);
    expect(isLeft(skipping) && skipping.left).toMatchObject({ _tag: 'PeriodNotNext', period: '2026-02', next: '2026-01' });
  });
});
