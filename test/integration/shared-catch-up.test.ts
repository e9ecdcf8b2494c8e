import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START, type EventStore, type Subscription } from '../../src/infra/event-store/event-store.port.js';
import { shareSubscriptions } from '../../src/infra/follow/shared-subscriptions.js';
import { eventually, eventuallyTrue } from '../support/eventually.js';
import { appendScripted, ledgerSchema, type LedgerSchema } from '../support/ledger-schema.js';
import { RandomWallets, seeded } from '../unit/projections/random-wallets.js';
import { WalletScript } from '../unit/projections/wallet-fixtures.js';

const EVENTS = 300;
const PAGE = 50;

describe('followers catching up behind the shared buffer', () => {
  let schema: LedgerSchema;
  let stored: string[];
  beforeAll(async () => {
    schema = await ledgerSchema('shared_catch_up');
    await appendScripted(schema.store, new RandomWallets(new WalletScript(), seeded(11), 6), EVENTS);
    // Another test's open transaction on the same server holds the newest events back from readAll for a moment.
    stored = await eventually(async () => {
      const ids = (await schema.store.readAll({ after: START, maxCount: 10 * EVENTS })).map((e) => e.id);
      expect(ids).toHaveLength(EVENTS);
      return ids;
    });
  });
  afterAll(() => schema?.close());

  /** Four followers from the start, in pages of 50; the first takes its first page only once the others have every event. */
  const catchUp = async (maxPaged?: number) => {
    const pagesRead: number[] = [];
    const counting: EventStore = {
      ...schema.store,
      readAll: async (o) => {
        const events = await schema.store.readAll(o);
        pagesRead.push(events.length);
        return events;
      },
    };
    const shared = shareSubscriptions(counting, { maxPaged });
    const controller = new AbortController();
    const received: string[][] = [[], [], [], []];
    const othersDone = eventuallyTrue('the quick followers caught up', () => received.slice(1).every((ids) => ids.length >= EVENTS));
    const subscriptions: Subscription[] = received.map((ids, i) =>
      shared.subscribe({
        after: START,
        batchSize: PAGE,
        signal: controller.signal,
        onEvents: async (events) => {
          if (i === 0 && ids.length === 0) await othersDone;
          ids.push(...events.map((e) => e.id));
        },
      }),
    );
    try {
      await eventuallyTrue('every follower caught up', () => received.every((ids) => ids.length >= EVENTS));
    } finally {
      controller.abort();
      await Promise.all(subscriptions.map((s) => s.done.catch(() => undefined)));
      await shared.close();
    }
    return { received, pagesRead };
  };

  it('when four followers catch up on the same events, then each page is read from the store once and each gets every event in order', async () => {
    const { received, pagesRead } = await catchUp();
    for (const ids of received) expect(ids).toEqual(stored);
    expect(pagesRead.filter((n) => n > 0)).toEqual(Array.from({ length: EVENTS / PAGE }, () => PAGE));
  });

  it('when the pages kept are bounded below what the followers spread over, then the slow one reads again and still misses nothing', async () => {
    const { received, pagesRead } = await catchUp(PAGE);
    for (const ids of received) expect(ids).toEqual(stored);
    // The quick ones read each page once; the slow one shares only the first and reads every other one again.
    expect(pagesRead.filter((n) => n > 0).length).toBe(2 * (EVENTS / PAGE) - 1);
  });
});
