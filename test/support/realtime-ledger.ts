import { isRight, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { Ledger } from '../../src/commands/ledger.types.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import type { ServerEventBus } from '../../src/infra/bus.js';
import { eventually } from './eventually.js';

/** Ledger and bus helpers for the realtime publisher and replay tests. */

export const must = <L, R>(result: Either<L, R>): R => {
  if (!isRight(result)) throw new Error(`refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

let seq = 0;
const next = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** A completed deposit of `amount`. */
export const fund = async (ledger: Ledger, userId: number, currencyId: CurrencyId, amount: string): Promise<void> => {
  const dep = must(
    await ledger.requestDeposit({ externalId: next('dep'), userId, providerId: 'TEST', networkId: 'ETH', currencyId, amount }),
  );
  must(await ledger.completeDeposit(dep.deposit.id, {}));
};

/** A placed bet on the game `slug`; returns its id. */
export const placeBet = async (
  ledger: Ledger,
  userId: number,
  o: { currencyId?: CurrencyId; amount: string; slug?: string; usdAmount?: string },
): Promise<string> => {
  const id = next('bet');
  const slug = o.slug ?? 'dice';
  must(
    await ledger.placeBet({
      id,
      userId,
      roundId: next('round'),
      gameId: 11,
      gameIdentity: { name: slug.toUpperCase(), slug, type: 'ORIGINALS', provider: { name: 'house' } },
      currencyId: o.currencyId ?? 'USDT',
      amount: o.amount,
      ...(o.usdAmount ? { usdAmount: o.usdAmount } : {}),
    }),
  );
  return id;
};

export type BusRecord = Readonly<{ name: string; message: Record<string, unknown> }>;

/** Everything published on a bus from now on. */
export const recordBus = async (bus: ServerEventBus) => {
  const received: BusRecord[] = [];
  const unsubscribe = await bus.subscribe((name, message) => received.push({ name, message }));
  return {
    received,
    unsubscribe,
    forUser: (userId: number, name?: string) => received.filter((r) => r.message.userId === userId && (!name || r.name === name)),
    inRoom: (room: string, name?: string) => received.filter((r) => r.message.room === room && (!name || r.name === name)),
  };
};

/** Waits until the users read model shows the user (and, when given, this profile key value). */
export const projectedUser = async (pool: pg.Pool, userId: number, profile?: Record<string, unknown>): Promise<void> =>
  eventually(async () => {
    const { rows } = await pool.query<{ profile: Record<string, unknown> }>('SELECT profile FROM users WHERE id = $1', [userId]);
    if (!rows[0]) throw new Error(`user ${userId} not projected yet`);
    for (const [k, v] of Object.entries(profile ?? {})) if (rows[0].profile[k] !== v) throw new Error(`profile.${k} not projected yet`);
  });

export const positionsAscending = (positions: readonly string[]): boolean =>
  positions.every((p, i) => {
    if (i === 0) return true;
    const [a, b] = [positions[i - 1]!, p].map((x) => x.split('/').map(BigInt) as [bigint, bigint]);
    return a![0] < b![0] || (a![0] === b![0] && a![1] <= b![1]);
  });
