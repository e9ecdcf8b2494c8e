import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { USD_SCALE } from '../domain/money/currency.js';
import { isParseError, parseDecimal, usdFromMinor, type Minor } from '../domain/money/money.js';
import { decide, type LimitsCommand, type LimitsMeta } from '../domain/limits/limits.decide.js';
import type { LimitsError } from '../domain/limits/limits.errors.js';
import {
  effectiveLimit,
  LIMIT_KINDS,
  LIMIT_WINDOWS,
  limitKey,
  type LimitKind,
  type LimitWindow,
} from '../domain/limits/gambling-limits.js';
import { limitsStream, type LimitsEvent } from '../domain/limits/limits.events.js';
import { evolve, initialLimitsState, isExcluded, type BetLimit, type Exclusion, type LimitsState } from '../domain/limits/limits.state.js';
import { figuresLiteral, type EventStore } from '../infra/event-store/event-store.port.js';
import { BET_GUARD, betGuardRefusal } from './bet-guard.js';
import type { BetGuard } from './wallet-kit.js';
import type { LedgerError } from './ledger.types.js';
import { createStreamHandler } from './stream.handler.js';

export const exclusionView = (userId: number, e: Exclusion) => ({
  id: e.id,
  userId,
  expiresAt: e.expiresAt,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});
export const betLimitView = (userId: number, l: BetLimit) => ({
  betLimit: l.betLimit,
  userId,
  id: l.id,
  createdAt: l.createdAt,
  updatedAt: l.updatedAt,
});
/** Every deposit and loss limit of a user: the one in force at `now`, and a pending loosening with when it applies. */
export const gamblingLimitsView = (userId: number, state: LimitsState, now: Date) => ({
  userId,
  limits: LIMIT_KINDS.flatMap((kind) =>
    LIMIT_WINDOWS.map((window) => {
      const record = state.gambling[limitKey(kind, window)];
      const pending = record?.pendingAt && Date.parse(record.pendingAt) > now.getTime();
      return {
        kind,
        window,
        limit: effectiveLimit(record, now),
        pending: pending ? { limit: record.pendingValue, effectiveAt: record.pendingAt! } : null,
        updatedAt: record?.updatedAt ?? null,
      };
    }),
  ),
});
export type GamblingLimitsView = ReturnType<typeof gamblingLimitsView>;
export type ExclusionView = ReturnType<typeof exclusionView>;
export type BetLimitView = ReturnType<typeof betLimitView>;

type Result<T> = Promise<Either<LimitsError, T>>;

export type Limits = Readonly<{
  setExclusion(userId: number, excludeUntil: Date, adminUserId: number): Result<ExclusionView>;
  liftExclusion(userId: number, adminUserId: number): Result<ExclusionView>;
  /** `betLimit`: a USD decimal string of at most 8 decimals (checked by the route). */
  setBetLimit(userId: number, betLimit: string, adminUserId: number): Result<BetLimitView>;
  /** A deposit or loss limit (`value` a USD decimal, null: remove); `adminUserId` null: the player's own change. */
  setGamblingLimit(
    userId: number,
    change: Readonly<{ kind: LimitKind; window: LimitWindow; value: string | null }>,
    adminUserId: number | null,
  ): Result<GamblingLimitsView>;
  gamblingLimits(userId: number): Promise<GamblingLimitsView>;
  load(userId: number): Promise<LimitsState>;
  activeExclusion(userId: number): Promise<ExclusionView | undefined>;
  betGuard: BetGuard;
}>;

// The routes' schemas let only USD decimals through.
const usdMinor = (value: string): Minor => {
  const minor = parseDecimal(value, USD_SCALE);
  if (isParseError(minor)) throw new Error(`limit ${value}: ${minor.message}`);
  return minor;
};

export const createLimits = (deps: Readonly<{ store: EventStore; pool: pg.Pool; clock?: () => Date }>): Limits => {
  const clock = deps.clock ?? (() => new Date());
  const handler = createStreamHandler<LimitsState, LimitsEvent, LimitsCommand, LimitsMeta, LimitsError>(deps.store, {
    streamOf: limitsStream,
    initial: initialLimitsState,
    evolve,
    decide,
  });
  const nextId = async (sequence: 'self_exclusion_id_seq' | 'bet_limit_id_seq'): Promise<number> =>
    Number((await deps.pool.query<{ id: string }>(`SELECT nextval('${sequence}') AS id`)).rows[0]!.id);

  const run = async (userId: number, command: LimitsCommand, adminUserId: number | null): Result<LimitsState> => {
    const handled = await handler.handle(
      userId,
      command,
      { now: clock(), adminUserId },
      adminUserId === null ? { userId } : { adminUserId },
    );
    if (isLeft(handled.decision)) return handled.decision;
    if (handled.decision.right.length > 0) {
      await deps.pool.query(
        `INSERT INTO user_limits (user_id, revision, state) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state
           WHERE user_limits.revision < EXCLUDED.revision`,
        [userId, handled.revision.toString(), JSON.stringify(handled.state)],
      );
    }
    return right(handled.state);
  };
  const load = async (userId: number) => (await handler.load(userId)).state;

  return {
    setExclusion: async (userId, excludeUntil, adminUserId) => {
      const exclusionId = await nextId('self_exclusion_id_seq');
      const result = await run(
        userId,
        { type: 'SetSelfExclusion', data: { exclusionId, excludeUntil: excludeUntil.toISOString() } },
        adminUserId,
      );
      return isLeft(result) ? result : right(exclusionView(userId, result.right.exclusion!));
    },
    liftExclusion: async (userId, adminUserId) => {
      const result = await run(userId, { type: 'LiftSelfExclusion', data: {} }, adminUserId);
      return isLeft(result) ? result : right(exclusionView(userId, result.right.exclusion!));
    },
    setBetLimit: async (userId, betLimit, adminUserId) => {
      const minor = usdMinor(betLimit);
      const limitId = await nextId('bet_limit_id_seq');
      const result = await run(userId, { type: 'SetBetLimit', data: { limitId, betLimit: usdFromMinor(minor) } }, adminUserId);
      return isLeft(result) ? result : right(betLimitView(userId, result.right.betLimit!));
    },
    setGamblingLimit: async (userId, change, adminUserId) => {
      const value = change.value === null ? null : usdFromMinor(usdMinor(change.value));
      const result = await run(userId, { type: 'SetGamblingLimit', data: { ...change, value } }, adminUserId);
      return isLeft(result) ? result : right(gamblingLimitsView(userId, result.right, clock()));
    },
    gamblingLimits: async (userId) => gamblingLimitsView(userId, await load(userId), clock()),
    load,
    activeExclusion: async (userId) => {
      const state = await load(userId);
      return isExcluded(state, clock()) ? exclusionView(userId, state.exclusion!) : undefined;
    },
    betGuard: Object.assign(
      // The same rule the PostgreSQL append runs inside its statement, read on its own (stores that cannot run it).
      async (userId: number, usdAmount: Minor | null, figures?: readonly (string | null)[]): Promise<LedgerError | undefined> => {
        const sql = `SELECT ${BET_GUARD.refusalSql('$1', '$2::numeric', '$3', '$4::numeric[]')} AS refusal`;
        const { rows } = await deps.pool.query<{ refusal: string | null }>(sql, [
          userId,
          usdAmount === null ? null : usdFromMinor(usdAmount),
          clock().toISOString(),
          figuresLiteral(figures),
        ]);
        return betGuardRefusal(userId, rows[0]?.refusal);
      },
      { inAppend: true },
    ),
  };
};
