import type pg from 'pg';
import type { Ledger } from '../commands/ledger.types.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';
import { usdFromMinor } from '../domain/money/money.js';
import { createPrizes } from './leaderboard.prizes.js';
import { nextStatus, periodOf, rank, type LeaderboardStatus, type Prize } from './leaderboard.rules.js';
import { prizeOf, usdMinorOf, type LeaderboardRow, type ScheduleRow } from './leaderboards.views.js';

export type TickOptions = Readonly<{
  pool: pg.Pool;
  ledger: Ledger;
  now: Date;
  /** ENDED waits this long before SETTLEMENT, so the bets read model catches up with the last bets. */
  settlementDelayMs?: number;
  /** RESERVED prize payments older than this are re-driven (a give-prize crashed between reserve and credit). */
  redriveAfterMs?: number;
}>;
export type TickResult = Readonly<{
  created: number;
  transitions: readonly { id: string; from: LeaderboardStatus; to: LeaderboardStatus }[];
  redriven: number;
}>;

const DEFAULT_SETTLEMENT_DELAY_MS = 60_000;
const DEFAULT_REDRIVE_AFTER_MS = 60_000;

/** Wagered USD per user from the bets read model: bets SETTLED inside [start, end), ranked with the given prizes. */
const refreshStandings = async (c: pg.PoolClient, lb: LeaderboardRow, prizes: readonly Prize[], now: Date): Promise<void> => {
  const { rows } = await c.query<{ user_id: string; usd: string }>(
    `SELECT user_id, sum(usd_amount)::text AS usd FROM bets WHERE status = 'SETTLED' AND settled_at >= $1 AND settled_at < $2
     GROUP BY user_id`,
    [lb.start_date, lb.end_date],
  );
  const standings = rank(
    rows.map((r) => ({ userId: Number(r.user_id), usdAmount: usdMinorOf(r.usd) })),
    prizes,
  );
  if (standings.length === 0) return;
  await c.query(
    `INSERT INTO leaderboard_users (id, leaderboard_id, user_id, position, usd_amount, usd_prize, remaining_usd_prize, is_winner,
      created_at, updated_at)
     SELECT gen_random_uuid()::text, $1, s.user_id, s.position, s.usd, s.prize, s.prize, s.prize > 0, $2, $2
     FROM unnest($3::bigint[], $4::int[], $5::numeric[], $6::numeric[]) AS s(user_id, position, usd, prize)
     ON CONFLICT (leaderboard_id, user_id) DO UPDATE SET position = EXCLUDED.position, usd_amount = EXCLUDED.usd_amount,
       usd_prize = EXCLUDED.usd_prize, remaining_usd_prize = EXCLUDED.remaining_usd_prize, is_winner = EXCLUDED.is_winner, updated_at = $2`,
    [
      lb.id,
      now,
      standings.map((s) => s.userId),
      standings.map((s) => s.position),
      standings.map((s) => usdFromMinor(s.usdAmount)),
      standings.map((s) => usdFromMinor(s.usdPrize)),
    ],
  );
};

const allPrizesPaid = async (c: pg.PoolClient, leaderboardId: string): Promise<boolean> => {
  const { rows } = await c.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM leaderboard_users WHERE leaderboard_id = $1 AND is_winner AND remaining_usd_prize > 0)
         OR EXISTS (SELECT 1 FROM leaderboard_prize_payments p JOIN leaderboard_users lu ON lu.id = p.leaderboard_user_id
                    WHERE lu.leaderboard_id = $1 AND p.status = 'RESERVED') AS open`,
    [leaderboardId],
  );
  return !rows[0]!.open;
};

/** One scheduler pass, idempotent: creates the current period's leaderboard of each enabled schedule, moves every open leaderboard as far
 * as the clock allows (standings refreshed while ACTIVE or ENDED, ranks and prizes fixed on entering SETTLEMENT), then re-drives stale
 * prize reservations. Serialised across processes by a transaction-scoped advisory lock. */
export const runLeaderboardTick = async (o: TickOptions): Promise<TickResult> => {
  const { pool, now } = o;
  const settlementDelayMs = o.settlementDelayMs ?? DEFAULT_SETTLEMENT_DELAY_MS;
  const transitions: { id: string; from: LeaderboardStatus; to: LeaderboardStatus }[] = [];
  let created = 0;
  await inTransaction(
    pool,
    async (client) => {
      const { rows: schedules } = await client.query<ScheduleRow>('SELECT * FROM leaderboard_schedules WHERE enabled');
      for (const s of schedules) {
        const { start, end } = periodOf(s.type, now);
        const config = { type: s.type, name: s.name, description: s.description, prizes: s.prizes };
        const inserted = await client.query(
          `INSERT INTO leaderboards (id, schedule_id, type, status, name, description, config, start_date, end_date, created_at, updated_at)
           VALUES (gen_random_uuid()::text, $1, $2, 'NOT_STARTED', $3, $4, $5, $6, $7, $8, $8)
             ON CONFLICT (schedule_id, start_date) DO NOTHING`,
          [s.id, s.type, s.name, s.description, JSON.stringify(config), start, end, now],
        );
        created += inserted.rowCount ?? 0;
      }
      const { rows: open } = await client.query<LeaderboardRow>(
        `SELECT * FROM leaderboards WHERE status <> 'FINISHED' ORDER BY start_date FOR UPDATE`,
      );
      for (const lb of open) {
        let status = lb.status;
        for (;;) {
          const to = nextStatus({
            status,
            startDate: lb.start_date,
            endDate: lb.end_date,
            now,
            settlementDelayMs,
            allPrizesPaid: status === 'SETTLEMENT' && (await allPrizesPaid(client, lb.id)),
          });
          if (to === undefined) break;
          if (to === 'SETTLEMENT') await refreshStandings(client, lb, lb.config.prizes.map(prizeOf), now);
          transitions.push({ id: lb.id, from: status, to });
          status = to;
        }
        if (status === 'ACTIVE' || status === 'ENDED') await refreshStandings(client, lb, [], now);
        if (status !== lb.status)
          await client.query('UPDATE leaderboards SET status = $2, updated_at = $3 WHERE id = $1', [lb.id, status, now]);
      }
    },
    { advisoryLock: 'leaderboard-scheduler' },
  );
  const redriven = await createPrizes({ pool, ledger: o.ledger }).redriveReserved(
    new Date(now.getTime() - (o.redriveAfterMs ?? DEFAULT_REDRIVE_AFTER_MS)),
  );
  return { created, transitions, redriven };
};

export type LeaderboardSchedulerOptions = Readonly<{
  pool: pg.Pool;
  store?: EventStore;
  ledger: Ledger;
  clock?: () => Date;
  intervalMs?: number;
  settlementDelayMs?: number;
  onError?: (error: unknown) => void;
}>;

/** Runs a tick now and then every `intervalMs` (default 30 s) until stopped; a failed tick is reported and retried next time. */
export const startLeaderboardScheduler = (o: LeaderboardSchedulerOptions) => {
  const clock = o.clock ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () =>
    runLeaderboardTick({
      pool: o.pool,
      ledger: o.ledger,
      now: clock(),
      ...(o.settlementDelayMs === undefined ? {} : { settlementDelayMs: o.settlementDelayMs }),
    });
  const loop = () => {
    running = tick()
      .catch((error: unknown) => o.onError?.(error))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, o.intervalMs ?? 30_000);
      });
  };
  loop();
  return {
    tick,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
};
export type LeaderboardScheduler = ReturnType<typeof startLeaderboardScheduler>;
