/**
 * The wallet half of bench:history: the same command on a fresh wallet and on wallets with long settled histories,
 * cold (a process holding nothing for the wallet) and warm (cached), with the heap a cached wallet holds.
 *
 * Histories are loaded set-based: one bet is placed and settled through the ledger, and its two events are copied in SQL
 * with new ids, times and revisions (the same postings and balances, since the payout equals the stake), with the
 * bet ids claimed in ledger_keys as the append claims them. The events are what the ledger writes; only the append's
 * per-request work is skipped (2,000,000 events through the ledger take hours here). The snapshot is then written
 * the way the service writes it: a first load folds the whole stream once and stores the kept state.
 */
import type pg from 'pg';
import { createLedger } from '../../src/commands/ledger.js';
import { decodeWalletSnapshot } from '../../src/commands/wallet-snapshot.js';
import { walletStream } from '../../src/domain/wallet/wallet.events.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { must } from '../lib/either.js';
import { game } from '../lib/game.js';
import { percentile, round } from '../lib/stats.js';

export type WalletBenchOptions = Readonly<{ pool: pg.Pool; store: EventStore; sizes: readonly number[]; runs: number; warmRuns: number }>;

type Latency = Readonly<{ p50Ms: number; p99Ms: number; runs: number }>;
export type WalletRow = Readonly<{
  settledBets: number;
  events: number;
  loadSeconds: number;
  firstFoldSeconds: number;
  snapshotRevision: string | null;
  cold: Latency;
  /** Balances read by a process holding nothing, 98 events past the wallet's snapshot. */
  coldLoadWithinBound: Latency;
  warm: Latency;
  heapBytesPerCachedWallet: number;
  /** The kept state alone (balances and open items), as decoded from the wallet's snapshot: what the cache holds per wallet beyond its slot. */
  heapBytesPerKeptState: number;
  retryOfFirstBet: Readonly<{ created: boolean; status: string; matchesOriginal: boolean; balanceUnchanged: boolean }> | null;
}>;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const latency = (ms: number[]): Latency => {
  const s = [...ms].sort((a, b) => a - b);
  return { p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), runs: ms.length };
};
const betInput = (userId: number, id: string) => ({
  id,
  userId,
  roundId: `r-${id}`,
  gameId: 7,
  gameIdentity: game,
  currencyId: 'USDT' as const,
  amount: '1',
});

/** Funds the wallet through the ledger, places and settles the template bet, then copies it `bets - 1` times in SQL. */
const loadHistory = async (o: WalletBenchOptions, userId: number, bets: number): Promise<number> => {
  const ledger = createLedger({ store: o.store, pool: o.pool });
  const dep = must(
    await ledger.requestDeposit({
      externalId: `fund-${userId}`,
      userId,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '1000000000',
    }),
  );
  must(await ledger.completeDeposit(dep.deposit.id, {}));
  if (bets === 0) return 2;
  must(await ledger.placeBet(betInput(userId, `h${userId}-0`)));
  must(await ledger.settleBet(`h${userId}-0`, { payout: '1' }));
  const stream = walletStream(userId);
  const copies = bets - 1;
  for (let from = 1; from <= copies; from += 100_000) {
    const to = Math.min(copies, from + 99_999);
    await o.pool.query(
      `WITH t AS (
         SELECT max(data::text) FILTER (WHERE type = 'BetPlaced')::jsonb AS placed, max(data::text) FILTER (WHERE type = 'BetSettled')::jsonb AS settled,
                max(metadata::text) FILTER (WHERE type = 'BetPlaced')::jsonb AS pm, max(metadata::text) FILTER (WHERE type = 'BetSettled')::jsonb AS sm
         FROM events WHERE stream_id = $1 AND stream_revision IN (2, 3)
       ), n AS (SELECT i, 'h' || $2::text || '-' || i AS bet, to_char(timestamptz '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
                FROM generate_series($3::int, $4::int) i)
       INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
       SELECT $1, 2 + 2 * n.i + k.k, gen_random_uuid(), k.type,
              CASE k.k WHEN 0 THEN t.placed || jsonb_build_object('betId', n.bet, 'roundId', 'r-' || n.bet, 'transactionId', 'bet_' || n.bet, 'at', n.at)
                       ELSE t.settled || jsonb_build_object('betId', n.bet, 'transactionId', 'win_' || n.bet, 'at', n.at, 'placedAt', n.at) END,
              CASE k.k WHEN 0 THEN t.pm ELSE t.sm END
       FROM n CROSS JOIN t CROSS JOIN (VALUES (0, 'BetPlaced'), (1, 'BetSettled')) AS k(k, type)
       ORDER BY n.i, k.k`,
      [stream, String(userId), from, to],
    );
    await o.pool.query(
      `INSERT INTO ledger_keys (kind, key, user_id) SELECT 'bet', 'h' || $1::text || '-' || i, $1::bigint FROM generate_series($2::int, $3::int) i`,
      [userId, from, to],
    );
  }
  const events = 4 + 2 * copies;
  await o.pool.query('UPDATE streams SET revision = $2 WHERE stream_id = $1', [stream, events - 1]);
  return events;
};

/** The heap the kept state alone takes: the wallet's snapshot decoded 2,000 times and held. */
const heapPerState = async (o: WalletBenchOptions, userId: number): Promise<number> => {
  const snapshot = await o.store.readSnapshot(walletStream(userId));
  if (!snapshot) return 0;
  const keep: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2000; i += 1) keep.push(decodeWalletSnapshot(userId, snapshot.data));
  gc();
  return Math.round((process.memoryUsage().heapUsed - before) / keep.length);
};

/** The heap one cached copy of the wallet holds: `copies` handlers each load it, measured between full collections. */
const heapPerWallet = async (o: WalletBenchOptions, userId: number, copies: number): Promise<number> => {
  const ledgers = Array.from({ length: copies }, () => createLedger({ store: o.store, pool: o.pool }));
  await ledgers[0]!.balances(userId); // statements prepared, code warm
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const l of ledgers.slice(1)) await l.balances(userId);
  gc();
  const after = process.memoryUsage().heapUsed;
  return Math.round((after - before) / (copies - 1));
};

type Wallet = {
  bets: number;
  userId: number;
  events: number;
  loadSeconds: number;
  firstFoldSeconds: number;
  snapshotRevision: string | null;
};

/** Round-robin over the wallets, one round of warm-up discarded: the order of the rows does not favour any. */
const interleaved = async (wallets: readonly Wallet[], rounds: number, f: (w: Wallet, round: number) => Promise<number>) => {
  const ms = wallets.map(() => [] as number[]);
  for (let r = -1; r < rounds; r += 1) {
    for (const [i, w] of wallets.entries()) {
      const took = await f(w, r);
      if (r >= 0) ms[i]!.push(took);
    }
  }
  return ms;
};

export const benchWallets = async (o: WalletBenchOptions, log: (line: string) => void): Promise<WalletRow[]> => {
  const wallets: Wallet[] = [];
  for (const [i, bets] of [0, ...o.sizes].entries()) {
    const userId = 9_000_000 + i;
    const loadStarted = performance.now();
    const events = await loadHistory(o, userId, bets);
    const loadSeconds = round((performance.now() - loadStarted) / 1000, 1);
    await o.pool.query('ANALYZE events');
    // The first load ever folds the whole stream and writes the snapshot (what the bound-based writer did as it grew).
    const foldStarted = performance.now();
    await createLedger({ store: o.store, pool: o.pool }).balances(userId);
    const firstFoldSeconds = round((performance.now() - foldStarted) / 1000, 1);
    let snapshot = await o.store.readSnapshot(walletStream(userId));
    for (let wait = 0; bets > 0 && !snapshot && wait < 100; wait += 1) {
      await new Promise((r) => setTimeout(r, 50));
      snapshot = await o.store.readSnapshot(walletStream(userId));
    }
    wallets.push({ bets, userId, events, loadSeconds, firstFoldSeconds, snapshotRevision: snapshot ? snapshot.revision.toString() : null });
    log(
      `loaded ${bets.toLocaleString('en')} settled bets (${events.toLocaleString('en')} events) in ${loadSeconds} s; first fold ${firstFoldSeconds} s`,
    );
  }
  const fresh = wallets[0]!;
  let freshUsers = 0;

  // Cold: a process holding nothing for the wallet; the fresh wallet is a new user each time.
  const cold = await interleaved(wallets, o.runs, async (w, r) => {
    const who = w === fresh ? 9_500_000 + freshUsers++ : w.userId;
    if (w === fresh) await loadHistory(o, who, 0);
    const ledger = createLedger({ store: o.store, pool: o.pool });
    const from = performance.now();
    must(await ledger.placeBet(betInput(who, `cold-${who}-${r}`)));
    const took = performance.now() - from;
    must(await ledger.settleBet(`cold-${who}-${r}`, { payout: '1' })); // settled, so every history stays all settled
    return took;
  });

  // The worst a cold wallet folds: 98 events after its snapshot (the bound is 100), then its balances read cold.
  const tail = createLedger({ store: o.store, pool: o.pool, walletSnapshotEvery: 1_000_000 });
  for (const w of wallets) {
    const at = await o.store.readSnapshot(walletStream(w.userId));
    const head = (await o.store.readStreamBackward(walletStream(w.userId), { maxCount: 1 }))[0]!.revision;
    const behind = Number(head - (at?.revision ?? -1n));
    for (let n = 0; n < Math.floor((98 - behind) / 2); n += 1) {
      must(await tail.placeBet(betInput(w.userId, `tail-${w.userId}-${n}`)));
      must(await tail.settleBet(`tail-${w.userId}-${n}`, { payout: '1' }));
    }
  }
  const coldLoad = await interleaved(wallets, o.runs, async (w) => {
    const ledger = createLedger({ store: o.store, pool: o.pool, walletSnapshotEvery: 1_000_000 });
    const from = performance.now();
    await ledger.balances(w.userId);
    return performance.now() - from;
  });

  const warmLedger = createLedger({ store: o.store, pool: o.pool });
  for (const w of wallets) await warmLedger.balances(w.userId);
  const warm = await interleaved(wallets, o.warmRuns, async (w, r) => {
    const from = performance.now();
    must(await warmLedger.placeBet(betInput(w.userId, `warm-${w.userId}-${r}`)));
    const took = performance.now() - from;
    must(await warmLedger.settleBet(`warm-${w.userId}-${r}`, { payout: '1' }));
    return took;
  });

  const heaps: number[] = [];
  const states: number[] = [];
  for (const w of wallets) {
    heaps.push(await heapPerWallet(o, w.userId, 401));
    states.push(await heapPerState(o, w.userId));
  }

  const rows: WalletRow[] = [];
  for (const [i, w] of wallets.entries()) {
    let retry: WalletRow['retryOfFirstBet'] = null;
    if (w.bets > 0) {
      const [original] = await o.store.readStream(walletStream(w.userId), { fromRevision: 2n, maxCount: 1 });
      const before = await createLedger({ store: o.store, pool: o.pool }).balances(w.userId);
      const again = must(await createLedger({ store: o.store, pool: o.pool }).placeBet(betInput(w.userId, `h${w.userId}-0`)));
      const after = await createLedger({ store: o.store, pool: o.pool }).balances(w.userId);
      retry = {
        created: again.created,
        status: again.bet.status,
        matchesOriginal: again.bet.id === original!.data.betId && again.bet.createdAt === original!.data.at,
        balanceUnchanged: JSON.stringify(before) === JSON.stringify(after),
      };
    }
    const row: WalletRow = {
      settledBets: w.bets,
      events: w.events,
      loadSeconds: w.loadSeconds,
      firstFoldSeconds: w.firstFoldSeconds,
      snapshotRevision: w.snapshotRevision,
      cold: latency(cold[i]!),
      coldLoadWithinBound: latency(coldLoad[i]!),
      warm: latency(warm[i]!),
      heapBytesPerCachedWallet: heaps[i]!,
      heapBytesPerKeptState: states[i]!,
      retryOfFirstBet: retry,
    };
    rows.push(row);
    const base = rows[0]!;
    log(
      `${w.bets.toLocaleString('en')} settled bets: cold command p50 ${row.cold.p50Ms} ms, p99 ${row.cold.p99Ms} ms ` +
        `(${round(row.cold.p50Ms / base.cold.p50Ms)}x / ${round(row.cold.p99Ms / base.cold.p99Ms)}x the fresh wallet's); ` +
        `cold load 98 events past the snapshot p50 ${row.coldLoadWithinBound.p50Ms} ms (${round(row.coldLoadWithinBound.p50Ms / base.coldLoadWithinBound.p50Ms)}x); ` +
        `warm p50 ${row.warm.p50Ms} ms, p99 ${row.warm.p99Ms} ms; heap per cached wallet ${(row.heapBytesPerCachedWallet / 1024).toFixed(1)} KB (its kept state ${(row.heapBytesPerKeptState / 1024).toFixed(1)} KB)` +
        (retry
          ? `; retry of the first bet: created ${retry.created}, ${retry.status}, the original ${retry.matchesOriginal}, balance unchanged ${retry.balanceUnchanged}`
          : ''),
    );
  }
  return rows;
};
