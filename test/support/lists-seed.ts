import type pg from 'pg';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { createLedger } from '../../src/commands/ledger.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import { untilVisible } from './audit-ledger.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv, type Reply } from './auth-env.js';
import type { TestDbOptions } from './db.js';

const ok = async <T>(result: Promise<Either<unknown, T>>): Promise<T> => {
  const r = await result;
  if (isLeft(r)) throw new Error(`ledger refused: ${JSON.stringify(r.left)}`);
  return r.right;
};

let seq = 0;
const next = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const GAME = (slug: string, provider: string) => ({ name: slug.toUpperCase(), slug, type: 'slots', provider: { name: provider } });

/**
 * A back-office test world: the auth env, a ledger with a settable clock (event times are known), the
 * projector, a SuperAdmin token, and seeding through the real ledger commands.
 */
export const createListsEnv = async (label: string, dbOptions: TestDbOptions = {}) => {
  const env: AuthEnv = await createAuthEnv(label, {}, dbOptions);
  let now = new Date('2026-03-02T10:00:00.000Z');
  const ledger = createLedger({
    store: env.store,
    pool: env.pool,
    userExists: env.users.exists,
    canTransact: env.users.canTransact,
    clock: () => now,
  });
  const projector = env.startProjector();
  const superadmin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  const token = (await signIn(env, superadmin)).accessToken;
  return {
    env,
    ledger,
    superadmin,
    /** Sets the time the next commands are decided at. */
    at: (iso: string) => {
      now = new Date(iso);
    },
    /**
     * Users are registered by the users' handler, not this ledger: wait for the last event stored, which covers both (not the
     * store's head, which stops below any transaction open in the cluster, another test file's included).
     */
    caughtUp: async () => projector.waitFor(await untilVisible(env.store, env.pool)),
    get: (path: string, as = token): Promise<Reply> => call(env.adminUrl, 'GET', path, { headers: bearer(as) }),
    post: (path: string, body: unknown, as = token): Promise<Reply> => call(env.adminUrl, 'POST', path, { headers: bearer(as), body }),
    deposit: async (
      userId: number,
      amount: string,
      o: { usdAmount?: string; currencyId?: CurrencyId; end?: 'PENDING' | 'CONFIRMED' | 'COMPLETE' | 'FAILED' } = {},
    ) => {
      const { deposit } = await ok(
        ledger.requestDeposit({
          externalId: next('ext'),
          userId,
          providerId: 'TEST',
          networkId: 'BSC',
          currencyId: o.currencyId ?? 'DBC',
          amount,
          usdAmount: o.usdAmount ?? amount,
        }),
      );
      const end = o.end ?? 'COMPLETE';
      if (end === 'CONFIRMED') return ok(ledger.confirmDeposit(deposit.id, {}));
      if (end === 'COMPLETE') return ok(ledger.completeDeposit(deposit.id, {}));
      if (end === 'FAILED') return ok(ledger.failDeposit(deposit.id, { reason: 'test' }));
      return deposit;
    },
    bet: async (
      userId: number,
      amount: string,
      o: {
        payout?: string;
        end?: 'CREATED' | 'SETTLED' | 'ROLLBACK' | 'ERROR';
        slug?: string;
        provider?: string;
        gameId?: number;
        usdAmount?: string;
      } = {},
    ) => {
      const id = next('bet');
      const placed = await ok(
        ledger.placeBet({
          id,
          userId,
          roundId: next('round'),
          gameId: o.gameId ?? 1,
          gameIdentity: GAME(o.slug ?? 'dice', o.provider ?? 'Acme Games'),
          currencyId: 'DBC',
          amount,
          usdAmount: o.usdAmount ?? amount,
        }),
      );
      const end = o.end ?? 'SETTLED';
      if (end === 'SETTLED') return ok(ledger.settleBet(id, { payout: o.payout ?? '0', usdPayout: o.payout ?? '0' }));
      if (end === 'ROLLBACK') return ok(ledger.rollbackBet(id));
      if (end === 'ERROR') return ok(ledger.errorBet(id, { errorDetails: 'boom' }));
      return placed.bet;
    },
    withdraw: async (userId: number, amount: string, usdAmount = amount) =>
      (
        await ok(
          ledger.requestWithdrawal({
            userId,
            currencyId: 'DBC',
            networkId: 'BSC',
            providerId: 'TEST',
            amount,
            usdAmount,
            recipientAddress: 'addr-1',
          }),
        )
      ).withdrawal,
    approve: (id: string) => ok(ledger.approveWithdrawal(id, superadmin.id)),
    completeWithdrawal: (id: string) => ok(ledger.completeWithdrawal(id, { txHash: next('tx') })),
    reject: (id: string) => ok(ledger.rejectWithdrawal(id, superadmin.id, 'no')),
    tip: (recipientUserId: number, amount: string, notes: string, adminUserId = superadmin.id) =>
      ok(ledger.tip({ recipientUserId, adminUserId, currencyId: 'DBC', amount, notes })),
    deduct: (recipientUserId: number, amount: string, notes: string, adminUserId = superadmin.id) =>
      ok(ledger.deductBalance({ recipientUserId, adminUserId, currencyId: 'DBC', amount, notes })),
    tokenFor: async (permission: Parameters<AuthEnv['makeUser']>[0]) => (await signIn(env, await env.makeUser(permission))).accessToken,
    close: () => env.close(),
  };
};
export type ListsEnv = Awaited<ReturnType<typeof createListsEnv>>;

/** About 40 MB of accounting rows in 2031, a year no other test reads: more than the socket buffers hold, so a download
 * whose reader stops holds its export back. Written straight into the read model (this is about exports, not the ledger). */
export const seedBulkTransactions = (pool: pg.Pool, userId: number): Promise<unknown> =>
  pool.query(
    `INSERT INTO transactions (id, user_id, currency_id, amount, before_balance, after_balance, type, event_id, position,
       position_commit, position_prepare, created_at, updated_at, effective_at)
     SELECT 'bulk-' || g || repeat('x', 2000), $1, 'DBC', 1, g, g + 1, 'DEPOSIT', gen_random_uuid(), '0/' || g, 0, g,
       '2031-01-01'::timestamptz + g * interval '1 second', '2031-01-01'::timestamptz + g * interval '1 second',
       '2031-01-01'::timestamptz + g * interval '1 second'
     FROM generate_series(1, 20000) g`,
    [userId],
  );
