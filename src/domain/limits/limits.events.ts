import type { GamblingLimit, LimitKind, LimitWindow } from './gambling-limits.js';

/** The responsible-gambling limits of one user: self-exclusions, the bet limit, deposit and loss limits. */
export const limitsStream = (userId: number): string => `limits-${userId}`;

type At = Readonly<{ at: string }>;
type ByAdmin = Readonly<{ adminUserId: number }>;

/** Bets are refused until `excludeUntil`; a repeat while active extends the same exclusion. */
export type SelfExclusionSet = Readonly<{
  type: 'SelfExclusionSet';
  data: Readonly<{ exclusionId: number; excludeUntil: string }> & At & ByAdmin;
}>;
export type SelfExclusionLifted = Readonly<{ type: 'SelfExclusionLifted'; data: Readonly<{ exclusionId: number }> & At & ByAdmin }>;
/** Largest stake allowed per bet, in USD (decimal string, 8 decimals). */
export type BetLimitSet = Readonly<{ type: 'BetLimitSet'; data: Readonly<{ limitId: number; betLimit: string }> & At & ByAdmin }>;

/**
 * A deposit or loss limit's record after a change (src/domain/limits/gambling-limits.ts): `adminUserId` null when the
 * player set it through the public API.
 */
export type GamblingLimitSet = Readonly<{
  type: 'GamblingLimitSet';
  data: Readonly<{ kind: LimitKind; window: LimitWindow; adminUserId: number | null } & GamblingLimit>;
}>;

export type LimitsEvent = SelfExclusionSet | SelfExclusionLifted | BetLimitSet | GamblingLimitSet;
