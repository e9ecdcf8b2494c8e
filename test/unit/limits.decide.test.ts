import { describe, expect, it } from 'vitest';
import { decide, type LimitsCommand } from '../../src/domain/limits/limits.decide.js';
import { evolve, initialLimitsState, isExcluded } from '../../src/domain/limits/limits.state.js';
import { deciderSpec } from '../support/decider.js';

const NOW = new Date('2026-01-02T03:04:05.000Z');
const AT = NOW.toISOString();
const LATER = '2026-02-01T00:00:00.000Z';
const USER = 42;
const ADMIN = 7;

const exclude = (excludeUntil: string, exclusionId = 1): LimitsCommand => ({
  type: 'SetSelfExclusion',
  data: { exclusionId, excludeUntil },
});
const lift: LimitsCommand = { type: 'LiftSelfExclusion', data: {} };
const setLimit = (betLimit: string, limitId = 1): LimitsCommand => ({ type: 'SetBetLimit', data: { limitId, betLimit } });

const { given, applied } = deciderSpec({ decide, evolve, initialState: initialLimitsState(USER), meta: { now: NOW, adminUserId: ADMIN } });

describe('limits decider', () => {
  it('when an admin sets a future self-exclusion, then SelfExclusionSet records end, admin and time, and the user is excluded', () => {
    const state = given()
      .when(exclude(LATER, 5))
      .then({ type: 'SelfExclusionSet', data: { exclusionId: 5, excludeUntil: LATER, at: AT, adminUserId: ADMIN } });
    expect(state.exclusion).toEqual({ id: 5, expiresAt: LATER, createdAt: AT, updatedAt: AT });
    expect(isExcluded(state, NOW)).toBe(true);
    expect(isExcluded(state, new Date(LATER))).toBe(false);
  });

  it('when the end is not in the future, then ExclusionNotInFuture', () => {
    given().when(exclude(AT)).thenFails('ExclusionNotInFuture');
  });

  it('when an active exclusion is extended, then its id is kept; shortening it is ExclusionWouldShorten; the same end is nothing', () => {
    given(applied(exclude(LATER, 1)))
      .when(exclude('2026-03-01T00:00:00.000Z', 2))
      .then({ type: 'SelfExclusionSet', data: { exclusionId: 1, excludeUntil: '2026-03-01T00:00:00.000Z', at: AT, adminUserId: ADMIN } });
    given(applied(exclude(LATER, 1)))
      .when(exclude('2026-01-10T00:00:00.000Z', 2))
      .thenFails('ExclusionWouldShorten');
    given(applied(exclude(LATER, 1)))
      .when(exclude(LATER, 2))
      .thenNothing();
  });

  it('when an expired exclusion is followed by a new one, then the new one gets the new id', () => {
    given(applied(exclude('2026-01-03T00:00:00.000Z', 1)))
      .when(exclude('2026-06-01T00:00:00.000Z', 2), { now: new Date('2026-01-04T00:00:00.000Z') })
      .then({
        type: 'SelfExclusionSet',
        data: { exclusionId: 2, excludeUntil: '2026-06-01T00:00:00.000Z', at: '2026-01-04T00:00:00.000Z', adminUserId: ADMIN },
      });
  });

  it('when an active exclusion is lifted, then it expires now; lifting again or with none is NoActiveExclusion', () => {
    const state = given(applied(exclude(LATER, 3)))
      .when(lift)
      .then({ type: 'SelfExclusionLifted', data: { exclusionId: 3, at: AT, adminUserId: ADMIN } });
    expect(isExcluded(state, NOW)).toBe(false);
    expect(state.exclusion).toMatchObject({ id: 3, expiresAt: AT });
    given(applied(exclude(LATER), lift))
      .when(lift)
      .thenFails('NoActiveExclusion');
    given().when(lift).thenFails('NoActiveExclusion');
  });

  it('when a bet limit is set and then changed, then the first id and creation time are kept', () => {
    given()
      .when(setLimit('10', 4))
      .then({ type: 'BetLimitSet', data: { limitId: 4, betLimit: '10', at: AT, adminUserId: ADMIN } });
    const state = given(applied(setLimit('10', 4)))
      .when(setLimit('0', 9))
      .then({ type: 'BetLimitSet', data: { limitId: 4, betLimit: '0', at: AT, adminUserId: ADMIN } });
    expect(state.betLimit).toEqual({ id: 4, betLimit: '0', createdAt: AT, updatedAt: AT });
  });
});
