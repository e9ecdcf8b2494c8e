import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { LimitsError } from './limits.errors.js';
import type { LimitsEvent } from './limits.events.js';
import { isExcluded, type LimitsState } from './limits.state.js';
import { limitKey, nextLimit, type LimitKind, type LimitWindow } from './gambling-limits.js';

/** Ids come from the command side (a sequence); each is used only when a new record starts. */
export type LimitsCommand =
  | Readonly<{ type: 'SetSelfExclusion'; data: Readonly<{ exclusionId: number; excludeUntil: string }> }>
  | Readonly<{ type: 'LiftSelfExclusion'; data: Readonly<Record<string, never>> }>
  | Readonly<{ type: 'SetBetLimit'; data: Readonly<{ limitId: number; betLimit: string }> }>
  /** `value`: a USD decimal, or null to remove the limit. */
  | Readonly<{ type: 'SetGamblingLimit'; data: Readonly<{ kind: LimitKind; window: LimitWindow; value: string | null }> }>;

/** `adminUserId` null: the player's own change (only deposit and loss limits). */
export type LimitsMeta = Readonly<{ now: Date; adminUserId: number | null }>;

export const decide = (command: LimitsCommand, state: LimitsState, meta: LimitsMeta): Either<LimitsError, readonly LimitsEvent[]> => {
  const at = meta.now.toISOString();
  // Exclusions and bet limits are the back office's: the player's own API sets only deposit and loss limits.
  const adminUserId = meta.adminUserId ?? -1;
  if (adminUserId < 0 && command.type !== 'SetGamblingLimit') throw new Error(`invariant: ${command.type} needs an admin`);
  switch (command.type) {
    case 'SetSelfExclusion': {
      const { excludeUntil } = command.data;
      if (Date.parse(excludeUntil) <= meta.now.getTime()) return left({ _tag: 'ExclusionNotInFuture', excludeUntil });
      const active = isExcluded(state, meta.now) ? state.exclusion : null;
      if (active && Date.parse(excludeUntil) < Date.parse(active.expiresAt))
        return left({ _tag: 'ExclusionWouldShorten', userId: state.userId, expiresAt: active.expiresAt });
      if (active?.expiresAt === excludeUntil) return right([]);
      return right([
        { type: 'SelfExclusionSet', data: { exclusionId: active?.id ?? command.data.exclusionId, excludeUntil, at, adminUserId } },
      ]);
    }
    case 'LiftSelfExclusion':
      if (!isExcluded(state, meta.now)) return left({ _tag: 'NoActiveExclusion', userId: state.userId });
      return right([{ type: 'SelfExclusionLifted', data: { exclusionId: state.exclusion!.id, at, adminUserId } }]);
    case 'SetBetLimit':
      return right([
        {
          type: 'BetLimitSet',
          data: { limitId: state.betLimit?.id ?? command.data.limitId, betLimit: command.data.betLimit, at, adminUserId },
        },
      ]);
    case 'SetGamblingLimit': {
      const { kind, window, value } = command.data;
      const next = nextLimit(state.gambling[limitKey(kind, window)], value, meta.now);
      return right(next ? [{ type: 'GamblingLimitSet', data: { kind, window, adminUserId: meta.adminUserId, ...next } }] : []);
    }
    default: {
      const never: never = command;
      return never;
    }
  }
};
