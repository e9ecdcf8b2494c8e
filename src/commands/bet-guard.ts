import type { AppendGuardRule } from '../infra/event-store/event-store.port.js';
import type { LedgerError } from './ledger.types.js';

/**
 * The bet guard, the one home of its rule: a bet is refused when its player is banned, self-excluded at the bet's
 * time, or over their per-bet USD limit. It is an SQL expression over the application's `user_access` and
 * `user_limits` tables that yields the refusal (its reason, then the value that caused it) or NULL. The PostgreSQL
 * append runs it inside its own statement for each guarded request, so a bet and the limits it is checked against are
 * read in one snapshot; stores that cannot (KurrentDB) run the same expression on its own just before appending.
 */
export const BET_GUARD: AppendGuardRule = {
  name: 'bet-guard',
  refusalSql: (user, usd, at) => `(SELECT CASE
    WHEN a.is_banned THEN 'banned'
    WHEN (l.state->'exclusion'->>'expiresAt')::timestamptz > ${at}::timestamptz
      THEN 'self-excluded ' || (l.state->'exclusion'->>'expiresAt')
    WHEN ${usd}::numeric > (l.state->'betLimit'->>'betLimit')::numeric THEN 'bet-limit ' || (l.state->'betLimit'->>'betLimit')
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
    default:
      throw new Error(`bet guard: unknown refusal ${refusal}`);
  }
};
