import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-errors.js';
import { acceptPositioned, markCovered, newDeliveryState } from '../../src/realtime/delivery.js';
import { sumReports } from '../../src/realtime/online.js';
import { MAX_TOKEN_LENGTH, authenticateSocketToken, refusalCode, tokenFromHandshake } from '../../src/realtime/socket-auth.js';

describe('gateway pure parts', () => {
  describe('tokenFromHandshake', () => {
    const headers = { cookie: 'socket_token=S; access_token=A', authorization: 'Bearer H' };
    it('when every source is present, then auth.socket_token, then cookie socket_token, then cookie access_token; never the Authorization header', () => {
      expect(tokenFromHandshake({ auth: { socket_token: 'T' }, headers }, true)).toBe('T');
      expect(tokenFromHandshake({ auth: {}, headers }, true)).toBe('S');
      expect(tokenFromHandshake({ auth: {}, headers: { cookie: 'access_token=A' } }, true)).toBe('A');
      expect(tokenFromHandshake({ auth: {}, headers: { authorization: 'Bearer H' } }, true)).toBeUndefined();
    });
    it('when cookies are not allowed (no Origin), then only auth.socket_token counts; a non-string socket_token is ignored', () => {
      expect(tokenFromHandshake({ auth: {}, headers }, false)).toBeUndefined();
      expect(tokenFromHandshake({ auth: { socket_token: 'T' }, headers }, false)).toBe('T');
      expect(tokenFromHandshake({ auth: { socket_token: 42 }, headers }, true)).toBe('S');
      expect(tokenFromHandshake({ auth: null, headers: {} }, true)).toBeUndefined();
    });
  });

  describe('authenticateSocketToken and refusalCode', () => {
    const never = async () => {
      throw new Error('must not verify');
    };
    it('when the token is missing or too long, then it is refused before verification', async () => {
      expect(await authenticateSocketToken(never, undefined)).toMatchObject({ ok: false, error: 'TOKEN_MISSING' });
      expect(await authenticateSocketToken(never, 'x'.repeat(MAX_TOKEN_LENGTH + 1))).toMatchObject({ ok: false, error: 'TOKEN_TOO_LONG' });
    });
    it('when the authenticator refuses, then its error maps to a code; an unexpected error is rethrown', () => {
      expect(refusalCode(new HttpError(401, 'UNAUTHORIZED', 'Access token expired'))).toBe('TOKEN_EXPIRED');
      expect(refusalCode(new HttpError(401, 'UNAUTHORIZED', 'Session ended'))).toBe('SESSION_ENDED');
      expect(refusalCode(new HttpError(401, 'UNAUTHORIZED', 'Invalid access token'))).toBe('TOKEN_INVALID');
      expect(refusalCode(new HttpError(403, 'USER_BANNED', 'x'))).toBe('BANNED');
      expect(refusalCode(new HttpError(401, 'AUTH_MFA_REQUIRED', 'x'))).toBe('MFA_REQUIRED');
      expect(() => refusalCode(new Error('connection refused'))).toThrow('connection refused');
    });
  });

  describe('acceptPositioned', () => {
    it('when events come in ledger order, then each goes out once; two names at one position both go out; older or repeated ones are dropped', () => {
      const s = newDeliveryState();
      expect(acceptPositioned(s, 'BalanceUpdated', '10/1')).toBe(true);
      expect(acceptPositioned(s, 'BalanceTippedSuccess', '10/1')).toBe(true);
      expect(acceptPositioned(s, 'BalanceUpdated', '10/1')).toBe(false);
      expect(acceptPositioned(s, 'BalanceUpdated', '9/7')).toBe(false);
      expect(acceptPositioned(s, 'BalanceUpdated', '10/2')).toBe(true);
      expect(acceptPositioned(s, 'BalanceUpdated', 'not-a-position')).toBe(true);
    });
    it('when a replay covered up to a position, then everything at or before it is dropped, later events pass', () => {
      const s = newDeliveryState();
      markCovered(s, { commit: 20n, prepare: 0n });
      expect(acceptPositioned(s, 'NotificationEventMessage', '20/0')).toBe(false);
      expect(acceptPositioned(s, 'BalanceUpdated', '19/5')).toBe(false);
      expect(acceptPositioned(s, 'BalanceUpdated', '20/1')).toBe(true);
    });
  });

  describe('sumReports', () => {
    it('when some gateway reports are stale or malformed, then they are left out and named for removal', () => {
      const now = 1_000_000;
      expect(sumReports({ a: `3:${now - 10}`, b: `4:${now - 100}`, dead: `50:${now - 10_000}`, junk: 'x' }, now, 1_000)).toEqual({
        count: 7,
        stale: ['dead', 'junk'],
      });
    });
  });
});
