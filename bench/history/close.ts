/**
 * The close half of bench:history: a month of N events booked as they arrive by the periods read model, then the
 * month's close (append, report written by the projector, seal, snapshots of the month's wallets), with bets answered
 * on other wallets meanwhile: their p99 during the close next to their p99 just before it, in the same run. Then
 * verify of the closed period, once and again (the second run reads nothing).
 *
 * The month is loaded set-based: W wallets are funded through the ledger, one bet placed and settled through it, and
 * its two events copied in SQL with new ids, bets, revisions, users and times spread over the month (the same amounts,
 * so every balanceAfter holds). The projector then books them as it books live events.
 */
import type pg from 'pg';
import { createLedger } from '../../src/commands/ledger.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPeriods } from '../../src/periods/close-period.use-case.js';
import { periodsProjection } from '../../src/periods/periods.projection.js';
import { startProjector } from '../../src/projections/index.js';
import { verifyPeriods } from '../../src/audit/verify.periods.js';
import { verifyOpenPeriod } from '../../src/audit/verify.open-period.js';
import { verifyLedger } from '../../src/audit/verify.js';
import { must } from '../lib/either.js';
import { game } from '../lib/game.js';
import { percentile, round } from '../lib/stats.js';

export type CloseBenchOptions = Readonly<{ pool: pg.Pool; store: EventStore; events: number; wallets: number; concurrency: number }>;

const bet = (userId: number, id: string) => ({
  id,
  userId,
  roundId: id,
  gameId: 7,
  gameIdentity: game,
  currencyId: 'USDT' as const,
  amount: '1',
});
const p = (ms: number[], q: number): number =>
  round(
    percentile(
      [...ms].sort((a, b) => a - b),
      q,
    ),
  );

export const benchClose = async (o: CloseBenchOptions, log: (line: string) => void) => {
  const MONTH = '2026-10';
  const start = Date.parse('2026-10-01T00:00:00Z');
  const span = Date.parse('2026-11-01T00:00:00Z') - start;
  const clockAt = { now: new Date(start + 1000) };
  const ledger = createLedger({ store: o.store, pool: o.pool, clock: () => clockAt.now });
  const users = Array.from({ length: o.wallets }, (_, i) => 5_000_000 + i);
  /** 1,000,000 USDT through the ledger's own deposit, requested and completed. */
  const fund = async (userId: number): Promise<void> => {
    const input = { externalId: `fund-${userId}`, userId, providerId: 'TEST', networkId: 'ETH', currencyId: 'USDT' as const };
    const d = must(await ledger.requestDeposit({ ...input, amount: '1000000' }));
    must(await ledger.completeDeposit(d.deposit.id, {}));
  };
  const loadStarted = performance.now();
  for (let i = 0; i < users.length; i += 50) {
    await Promise.all(users.slice(i, i + 50).map((u) => fund(u)));
  }
  must(await ledger.placeBet(bet(users[0]!, 'tpl')));
  must(await ledger.settleBet('tpl', { payout: '1' }));
  const perWallet = Math.max(1, Math.floor((o.events - 2 * users.length) / 2 / users.length));
  for (let from = 0; from < perWallet; from += Math.max(1, Math.floor(200_000 / users.length))) {
    const to = Math.min(perWallet - 1, from + Math.max(1, Math.floor(200_000 / users.length)) - 1);
    await o.pool.query(
      `WITH t AS (
         SELECT max(data::text) FILTER (WHERE type = 'BetPlaced')::jsonb AS placed, max(data::text) FILTER (WHERE type = 'BetSettled')::jsonb AS settled,
                max(metadata::text) FILTER (WHERE type = 'BetPlaced')::jsonb AS pm, max(metadata::text) FILTER (WHERE type = 'BetSettled')::jsonb AS sm
         FROM events WHERE stream_id = $1 AND stream_revision IN (2, 3)
       ), n AS (
         SELECT u, i, 'c' || u || '-' || i AS bet,
           to_char(to_timestamp(($4::bigint + ((i * $6::bigint + (u - $7::bigint)) * $5::bigint) / ($8::bigint * $6::bigint)) / 1000.0) AT TIME ZONE 'UTC',
             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
         FROM generate_series($2::int, $3::int) i CROSS JOIN unnest($9::bigint[]) u
       )
       INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
       SELECT 'wallet-' || n.u, (CASE WHEN n.u = $7::bigint THEN 4 ELSE 2 END) + 2 * n.i + k.k, gen_random_uuid(), k.type,
         CASE k.k WHEN 0 THEN jsonb_set(t.placed || jsonb_build_object('betId', n.bet, 'roundId', n.bet, 'transactionId', 'bet_' || n.bet, 'at', n.at, 'effectiveAt', n.at),
                                        '{postings,0,account}', to_jsonb('user:' || n.u))
                  ELSE jsonb_set(t.settled || jsonb_build_object('betId', n.bet, 'transactionId', 'win_' || n.bet, 'at', n.at, 'effectiveAt', n.at, 'placedAt', n.at),
                                 '{postings,1,account}', to_jsonb('user:' || n.u)) END,
         CASE k.k WHEN 0 THEN t.pm || jsonb_build_object('userId', n.u) ELSE t.sm || jsonb_build_object('userId', n.u) END
       FROM n CROSS JOIN t CROSS JOIN (VALUES (0, 'BetPlaced'), (1, 'BetSettled')) AS k(k, type)
       ORDER BY n.i, n.u, k.k`,
      [`wallet-${users[0]}`, from, to, start, span, users.length, users[0], perWallet, users],
    );
  }
  await o.pool.query(
    `UPDATE streams SET revision = (CASE WHEN stream_id = $1 THEN 3 ELSE 1 END) + 2 * $2 WHERE stream_id = ANY($3::text[])`,
    [`wallet-${users[0]}`, perWallet, users.map((u) => `wallet-${u}`)],
  );
  const { rows } = await o.pool.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE stream_id = ANY($1::text[])`, [
    users.map((u) => `wallet-${u}`),
  ]);
  const monthEvents = Number(rows[0]!.n);
  const loadSeconds = round((performance.now() - loadStarted) / 1000, 1);
  await o.pool.query('ANALYZE events');
  log(`loaded ${monthEvents.toLocaleString('en')} events of ${MONTH} in ${users.length.toLocaleString('en')} wallets in ${loadSeconds} s`);

  // Booking as events arrive: the periods read model alone, over the whole month.
  const bookingStarted = performance.now();
  const projector = startProjector({ store: o.store, pool: o.pool, projections: [periodsProjection], batchSize: 5000 });
  await projector.waitFor(await o.store.headPosition());
  const bookingSeconds = (performance.now() - bookingStarted) / 1000;
  log(
    `booked by the periods read model at ${Math.round(monthEvents / bookingSeconds).toLocaleString('en')} events/s (${round(bookingSeconds, 1)} s)`,
  );

  // The service writes a wallet's snapshot every WALLET_SNAPSHOT_EVERY events as it grows; loaded set-based, they get theirs now.
  const snapshotsStarted = performance.now();
  for (const u of users) await ledger.internals.handler.snapshot(u);
  log(
    `snapshots of the ${users.length.toLocaleString('en')} wallets written in ${round((performance.now() - snapshotsStarted) / 1000, 1)} s`,
  );

  // Bets answered on other wallets while nothing closes, then while the month closes.
  clockAt.now = new Date('2026-11-02T10:00:00Z');
  const players = Array.from({ length: o.concurrency }, (_, i) => 6_000_000 + i);
  for (const u of players) await fund(u);
  let n = 0;
  const timedBets = async (until: () => boolean): Promise<number[]> => {
    const ms: number[] = [];
    await Promise.all(
      players.map(async (u) => {
        while (!until()) {
          const id = `live-${u}-${n++}`;
          const from = performance.now();
          must(await ledger.placeBet(bet(u, id)));
          ms.push(performance.now() - from);
          must(await ledger.settleBet(id, { payout: '1' }));
        }
      }),
    );
    return ms;
  };
  const quietEnds = performance.now() + 8000;
  const quiet = await timedBets(() => performance.now() > quietEnds);

  const periods = createPeriods({
    store: o.store,
    pool: o.pool,
    clock: () => clockAt.now,
    calendar: { timeZone: 'UTC', unit: 'month' },
    sealKey: Buffer.alloc(32, 9),
    snapshotWallet: (u) => ledger.internals.handler.snapshot(u),
  });
  let closing = true;
  const during = timedBets(() => !closing);
  const closeStarted = performance.now();
  const closed = must(await periods.close(MONTH, 1));
  const closeSeconds = (performance.now() - closeStarted) / 1000;
  closing = false;
  const duringMs = await during;
  // The close answers once its report is sealed; the snapshots of the month's wallets go on in the background.
  const afterEnds = performance.now() + 5000;
  const afterMs = await timedBets(() => performance.now() > afterEnds);
  log(
    `close of ${MONTH}: ${round(closeSeconds, 2)} s to the sealed report (${closed.balances.toLocaleString('en')} closing balances), ` +
      `${Math.round(monthEvents / closeSeconds).toLocaleString('en')} events of the month per second; ` +
      `bets meanwhile p50 ${p(duringMs, 50)} ms p99 ${p(duringMs, 99)} ms (${duringMs.length}), ` +
      `just before p50 ${p(quiet, 50)} ms p99 ${p(quiet, 99)} ms (${quiet.length}): p99 ${round(p(duringMs, 99) / p(quiet, 99))}x; ` +
      `the 5 s after it, while the month's wallets are snapshotted, p99 ${p(afterMs, 99)} ms (${round(p(afterMs, 99) / p(quiet, 99))}x)`,
  );

  const verifyStarted = performance.now();
  const first = await verifyPeriods({ pool: o.pool, store: o.store, key: Buffer.alloc(32, 9) });
  const firstSeconds = (performance.now() - verifyStarted) / 1000;
  const againStarted = performance.now();
  const again = await verifyPeriods({ pool: o.pool, store: o.store, key: Buffer.alloc(32, 9) });
  const againSeconds = (performance.now() - againStarted) / 1000;
  log(
    `verify of the closed month: ${round(firstSeconds, 2)} s the first time (${first.length} differences), ` +
      `${round(againSeconds, 3)} s once verified (${again.length} differences): the closed period is not read again`,
  );
  // The first open-period verify also checks every snapshot once (written since the last run); the second is the steady state.
  const firstOpenStarted = performance.now();
  await verifyOpenPeriod({ pool: o.pool, store: o.store, key: Buffer.alloc(32, 9) });
  const firstOpenSeconds = (performance.now() - firstOpenStarted) / 1000;
  const openStarted = performance.now();
  const open = await verifyOpenPeriod({ pool: o.pool, store: o.store, key: Buffer.alloc(32, 9) });
  const openSeconds = (performance.now() - openStarted) / 1000;
  const fullStarted = performance.now();
  const full = await verifyLedger({ store: o.store, pool: o.pool, seals: false });
  const fullSeconds = (performance.now() - fullStarted) / 1000;
  log(
    `verify of the open period ${round(openSeconds, 2)} s (${open.events.toLocaleString('en')} events since the close; ` +
      `${round(firstOpenSeconds, 2)} s the first time, checking every snapshot once, ` +
      `${open.differences.length} differences) against the full verify's ${round(fullSeconds, 2)} s ` +
      `(${full.events.toLocaleString('en')} events, read models included): ${round(openSeconds / fullSeconds, 3)}x`,
  );
  await projector.stop();
  return {
    verifyOpenPeriodSeconds: round(openSeconds, 3),
    verifyOpenPeriodFirstSeconds: round(firstOpenSeconds, 3),
    verifyOpenPeriodEvents: open.events,
    verifyFullSeconds: round(fullSeconds, 3),
    verifyFullEvents: full.events,
    month: MONTH,
    events: monthEvents,
    wallets: users.length,
    loadSeconds,
    bookingEventsPerSecond: Math.round(monthEvents / bookingSeconds),
    closeSeconds: round(closeSeconds, 3),
    closingBalances: closed.balances,
    betsDuringClose: { p50Ms: p(duringMs, 50), p99Ms: p(duringMs, 99), count: duringMs.length },
    betsBefore: { p50Ms: p(quiet, 50), p99Ms: p(quiet, 99), count: quiet.length },
    betsAfter: { p50Ms: p(afterMs, 50), p99Ms: p(afterMs, 99), count: afterMs.length },
    verifyFirstSeconds: round(firstSeconds, 3),
    verifyAgainSeconds: round(againSeconds, 3),
    verifyDifferences: first.length + again.length,
  };
};
