import type pg from 'pg';
import type { Rates } from '../commands/rates.js';
import type { CurrencyId } from '../domain/money/currency.js';
import type { DecimalString } from '../domain/money/money.js';
import { formatPosition, parsePosition, START, type EventStore, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import type { ServerEventBus } from './bus.js';
import { serverEventsOf } from './ledger-events.js';

export type LedgerPublisherDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  bus: ServerEventBus;
  rates: Rates;
  name?: string;
  logger?: { warn(obj: object, msg?: string): void };
}>;

export type LedgerPublisher = Readonly<{ stop: () => Promise<void> }>;

const usernamesOf = async (pool: pg.Pool, ids: number[]): Promise<Map<number, string | null>> => {
  if (ids.length === 0) return new Map();
  const { rows } = await pool.query<{ id: string; username: string | null }>('SELECT id, username FROM users WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), r.username]));
};

/**
 * The projection subscriber that pushes the ledger to sockets: follows the event store from its own
 * checkpoint and publishes BalanceUpdated (every balance change) and BalanceTippedSuccess (admin tips)
 * on `server_channel_event.<EventName>`, in ledger order, each with its position. The checkpoint moves
 * after a batch is published: delivery is at least once, and the position lets clients drop repeats.
 */
export const startLedgerPublisher = async (deps: LedgerPublisherDeps): Promise<LedgerPublisher> => {
  const name = deps.name ?? 'realtime';
  const { rows } = await deps.pool.query<{ position: string }>('SELECT position FROM publisher_checkpoints WHERE name = $1', [name]);
  // A new publisher starts at the head: sockets care about what happens from now on.
  const after = rows[0] ? parsePosition(rows[0].position) : await deps.store.headPosition();
  const controller = new AbortController();

  const publishBatch = async (events: readonly RecordedEvent[]): Promise<void> => {
    const currencies = new Set<CurrencyId>();
    const admins = new Set<number>();
    for (const e of events) {
      const d = e.data as { currencyId?: CurrencyId; adminUserId?: number };
      if (d.currencyId) currencies.add(d.currencyId);
      if (e.type === 'AdminTipCredited' && typeof d.adminUserId === 'number') admins.add(d.adminUserId);
    }
    const rates = new Map<string, DecimalString>();
    for (const c of currencies) rates.set(c, await deps.rates.usdRate(c));
    const usernames = await usernamesOf(deps.pool, [...admins]);
    const lookups = { usdRate: (c: string) => rates.get(c) ?? ('0' as DecimalString), username: (id: number) => usernames.get(id) ?? null };
    for (const e of events) {
      for (const out of serverEventsOf(e, lookups)) {
        await deps.bus.publish(out.name, { userId: out.userId, position: out.position, payload: out.payload });
      }
    }
    await deps.pool.query(
      `INSERT INTO publisher_checkpoints (name, position) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = now()`,
      [name, formatPosition(events.at(-1)!.position)],
    );
  };

  const subscription = deps.store.subscribe({
    after: after ?? START,
    signal: controller.signal,
    // A failed publish (Redis down) is retried with backoff: the checkpoint only moves once it went out.
    onEvents: async (events) => {
      for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
        try {
          return await publishBatch(events);
        } catch (error) {
          if (controller.signal.aborted) throw error;
          deps.logger?.warn({ err: error, retryInMs: delay }, 'realtime publish failed; retrying');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    },
    onError: (error) => deps.logger?.warn({ err: error }, 'realtime publisher stopped'),
  });
  return {
    stop: async () => {
      controller.abort();
      await subscription.done.catch(() => undefined);
    },
  };
};
