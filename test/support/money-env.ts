import type { Permission } from '../../src/domain/user/permissions.js';
import { bearer, call, signIn, type AuthEnv, type CallOptions, type Reply } from './auth-env.js';

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** An Admin holding exactly these permissions (or a SuperAdmin), signed in; `as` calls the back office with its token. */
export const signedInAdmin = async (env: AuthEnv, permissions: Permission[], superadmin = false) => {
  const user = await env.makeUser({ roles: superadmin ? ['User', 'SuperAdmin'] : ['User', 'Admin'], permissions });
  const { accessToken } = await signIn(env, user);
  const as = (method: string, path: string, options: CallOptions = {}): Promise<Reply> =>
    call(env.adminUrl, method, path, { ...options, headers: { ...bearer(accessToken), ...options.headers } });
  return { id: user.id, username: user.username, as };
};

/** A user whose wallet holds `amount` of `currencyId`, credited through a completed deposit. */
export const fundedUser = async (env: AuthEnv, amount = '10', currencyId: 'BTC' | 'DBC' | 'USDT' = 'BTC') => {
  const user = await env.makeUser();
  const requested = await env.ledger.requestDeposit({
    externalId: uid('ext'),
    userId: user.id,
    providerId: 'PROVIDER_A',
    networkId: 'BTC',
    currencyId,
    amount,
  });
  if (requested._tag === 'Left') throw new Error(requested.left._tag);
  const completed = await env.ledger.completeDeposit(requested.right.deposit.id, { txHash: uid('tx') });
  if (completed._tag === 'Left') throw new Error(completed.left._tag);
  return user;
};

/** A PENDING withdrawal of `amount` BTC from a user funded with `funds`. */
export const pendingWithdrawal = async (env: AuthEnv, amount = '1', funds = '10') => {
  const user = await fundedUser(env, funds);
  const requested = await env.ledger.requestWithdrawal({
    userId: user.id,
    currencyId: 'BTC',
    networkId: 'BTC',
    providerId: 'PROVIDER_B',
    amount,
    recipientAddress: 'bc1qexample',
  });
  if (requested._tag === 'Left') throw new Error(requested.left._tag);
  return { user, withdrawal: requested.right.withdrawal };
};

/** The user's balance in a currency, straight from the wallet stream ("0" when never touched). */
export const balanceOf = async (env: AuthEnv, userId: number, currencyId = 'BTC'): Promise<string> =>
  (await env.ledger.balances(userId)).find((b) => b.currencyId === currencyId)?.balance ?? '0';

export const eventCount = async (env: AuthEnv): Promise<number> =>
  Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);

/** Per currency, the sum of every account in the trial balance (all zero when the ledger balances). */
export const trialBalance = async (env: AuthEnv): Promise<Record<string, string>> => {
  const rows = await env.pool.query<{ currency_id: string; total: string }>(
    'SELECT currency_id, sum(balance)::text AS total FROM account_balances GROUP BY currency_id ORDER BY currency_id',
  );
  return Object.fromEntries(rows.rows.map((r) => [r.currency_id, r.total]));
};
