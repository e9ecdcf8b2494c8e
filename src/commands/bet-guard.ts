import type { AppendGuardRule } from '../infra/event-store/event-store.port.js';
import type { LedgerError } from './ledger.types.js';
import { LIMIT_WINDOWS, limitKey, type LimitKind, type LimitWindow } from '../domain/limits/gambling-limits.js';

/**
 * The order of a check's figures: the net loss over each window with the bet, then the deposits over each window with
 * the deposit request (src/domain/wallet/wallet.tallies.ts); a check fills the ones it is about, the others stay null.
 */
export const FIGURES: readonly (readonly [LimitKind, LimitWindow])[] = [
  ...LIMIT_WINDOWS.map((w) => ['loss', w] as const),
  ...LIMIT_WINDOWS.map((w) => ['deposit', w] as const),
];

const limitRefusals = (figures: string, at: string): string =>
  FIGURES.map(([kind, window], i) => {
    const limit = `gambling_limit_at(l.state, '${limitKey(kind, window)}', ${at})`;
    // Players without deposit or loss limits, and figures a check leaves null, skip the limit's lookup.
    const figure = `(${figures})[${i + 1}]`;
    return `WHEN l.state ? 'gambling' AND ${figure} IS NOT NULL AND ${figure} > ${limit} THEN '${kind}-limit ${window} ' || ${limit}`;
  }).join('\n    ');

/**
 * The bet guard, the one home of its rule: a bet is refused when its player is banned, self-excluded at the bet's
 * time, over their per-bet USD limit, or when the net loss it brings a window to is past the player's loss limit in
 * force then; a deposit request (no USD amount, deposit figures) when it brings a window past the deposit limit. It is
 * an SQL expression over the application's `user_access` and `user_limits` tables that yields the refusal (its reason,
 * then the value that caused it) or NULL. The PostgreSQL append runs it inside its own statement for each guarded
 * request, so a bet and the limits it is checked against are read in one snapshot; stores that cannot (KurrentDB) run
 * the same expression on its own just before appending.
 */
export const BET_GUARD: AppendGuardRule = {
  name: 'bet-guard',
  refusalSql: (user, usd, at, figures) => `(SELECT CASE
    WHEN ${usd} IS NOT NULL AND a.is_banned THEN 'banned'
    WHEN ${usd} IS NOT NULL AND (l.state->'exclusion'->>'expiresAt')::timestamptz > ${at}::timestamptz
      THEN 'self-excluded ' || (l.state->'exclusion'->>'expiresAt')
    WHEN ${usd}::numeric > (l.state->'betLimit'->>'betLimit')::numeric THEN 'bet-limit ' || (l.state->'betLimit'->>'betLimit')
    ${limitRefusals(figures, `${at}::timestamptz`)}
  END
  FROM (SELECT ${user}::bigint AS user_id) u
  LEFT JOIN user_access a ON a.user_id = u.user_id LEFT JOIN user_limits l ON l.user_id = u.user_id)`,
};

/** The refusal the guard's expression yielded, as the ledger's error for the player (undefined: none). */
export const betGuardRefusal = (userId: number, refusal: string | null | undefined): LedgerError | undefined => {
  if (!refusal) return undefined;
  const [reason = '', ...rest] = refusal.split(' ');
  const value = rest.join(' ');
  switch (reason) {
    case 'banned':
      return { _tag: 'UserBanned', userId };
    case 'self-excluded':
      return { _tag: 'UserSelfExcluded', userId, expiresAt: value };
    case 'bet-limit':
      return { _tag: 'BetLimitExceeded', userId, betLimit: value };
    case 'loss-limit':
    case 'deposit-limit': {
      const [window = '', limit = ''] = rest as [LimitWindow, string];
      return { _tag: reason === 'loss-limit' ? 'LossLimitExceeded' : 'DepositLimitExceeded', userId, window, limit };
    }
    default:
      throw new Error(`bet guard: unknown refusal ${refusal}`);
  }
};
