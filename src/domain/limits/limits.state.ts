import { limitKey, type GamblingLimits } from './gambling-limits.js';
import type { LimitsEvent } from './limits.events.js';

export type Exclusion = Readonly<{ id: number; expiresAt: string; createdAt: string; updatedAt: string }>;
export type BetLimit = Readonly<{ id: number; betLimit: string; createdAt: string; updatedAt: string }>;

/** The latest exclusion (active while `expiresAt` is in the future) and the bet limit, if any. */
export type LimitsState = Readonly<{
  userId: number;
  exclusion: Exclusion | null;
  betLimit: BetLimit | null;
  /** Deposit and loss limits by `kind-window`; the bet guard reads them from user_limits.state. */
  gambling: GamblingLimits;
}>;

export const initialLimitsState = (userId: number): LimitsState => ({ userId, exclusion: null, betLimit: null, gambling: {} });

export const isExcluded = (state: LimitsState, now: Date): boolean =>
  state.exclusion !== null && Date.parse(state.exclusion.expiresAt) > now.getTime();

export const evolve = (state: LimitsState, event: LimitsEvent): LimitsState => {
  switch (event.type) {
    case 'SelfExclusionSet': {
      const { exclusionId, excludeUntil, at } = event.data;
      const same = state.exclusion?.id === exclusionId;
      return {
        ...state,
        exclusion: { id: exclusionId, expiresAt: excludeUntil, createdAt: same ? state.exclusion!.createdAt : at, updatedAt: at },
      };
    }
    case 'SelfExclusionLifted':
      return state.exclusion === null
        ? state
        : { ...state, exclusion: { ...state.exclusion, expiresAt: event.data.at, updatedAt: event.data.at } };
    case 'BetLimitSet': {
      const { limitId, betLimit, at } = event.data;
      return { ...state, betLimit: { id: limitId, betLimit, createdAt: state.betLimit?.createdAt ?? at, updatedAt: at } };
    }
    case 'GamblingLimitSet': {
      const { kind, window, value, pendingValue, pendingAt, updatedAt } = event.data;
      return { ...state, gambling: { ...state.gambling, [limitKey(kind, window)]: { value, pendingValue, pendingAt, updatedAt } } };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
};
