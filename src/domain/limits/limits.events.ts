/** The responsible-gambling limits of one user: self-exclusions and the bet limit, each change by an admin. */
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

export type LimitsEvent = SelfExclusionSet | SelfExclusionLifted | BetLimitSet;
