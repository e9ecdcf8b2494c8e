/** bench:ledger's settings (BENCH_* variables) and the event-sized row its baselines insert. */
import { game } from '../lib/game.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
export const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,4,16,64,256').split(',').map(Number);
export const POOL_SIZE = Number(process.env.BENCH_POOL ?? 10);
/** Timed blocks per concurrency in each ledger row: the ratio's spread on a machine whose speed drifts. */
export const BLOCKS = Math.max(1, Number(process.env.BENCH_BLOCKS ?? 1));
/** The projector's coalescing wait (its default when unset). */
export const COALESCE_MS = process.env.BENCH_COALESCE_MS ? Number(process.env.BENCH_COALESCE_MS) : undefined;
export const WALLETS = 2000;
export const EVENT_DATA = JSON.stringify({
  transactionId: 'bet_0123456789',
  currencyId: 'USDT',
  amount: '1.5',
  usdAmount: '1.5',
  betId: '0123456789',
  roundId: 'r-1',
  gameId: 7,
  gameIdentity: game,
  postings: [
    { account: 'user:1', currencyId: 'USDT', amount: '-1.5' },
    { account: 'house:bets', currencyId: 'USDT', amount: '1.5' },
  ],
  balanceAfter: '98.5',
  at: new Date().toISOString(),
});
