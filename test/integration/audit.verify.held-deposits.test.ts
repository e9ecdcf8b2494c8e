import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/audit/verify.js';
import { createLedger } from '../../src/commands/ledger.js';
import type { BetGuard } from '../../src/commands/wallet-kit.js';
import { projectAll } from '../support/audit-ledger.js';
import { createLedgerEnv, type LedgerEnv } from '../support/ledger-env.js';

const USER = 303;
/** Every deposit request is past the limit: one that names its transaction is recorded over limit and completes held. */
const overLimit: BetGuard = async (userId, usdAmount) =>
  usdAmount === null ? { _tag: 'DepositLimitExceeded', userId, window: '24h', limit: '0' } : undefined;

describe('verify with held deposits', () => {
  let env: LedgerEnv;
  beforeAll(async () => {
    env = await createLedgerEnv('audit_verify_held');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('when deposits complete held and are released or returned, then verify passes and the books balance', async () => {
    const ledger = createLedger({ store: env.store, pool: env.pool, betGuard: overLimit });
    const held = async (n: number, amount: string): Promise<string> => {
      const requested = await ledger.requestDeposit({
        externalId: `held-${n}`,
        userId: USER,
        providerId: 'P',
        networkId: 'ETH',
        currencyId: 'USDT',
        amount,
        txHash: `0x${n}`,
      });
      if (requested._tag === 'Left') throw new Error(requested.left._tag);
      expect((await ledger.completeDeposit(requested.right.deposit.id, {}))._tag).toBe('Right');
      return requested.right.deposit.id;
    };
    const [released, returned] = [await held(1, '12.5'), await held(2, '7')];
    await held(3, '1');
    expect(await ledger.releaseDeposit(released, { adminUserId: 9, reason: 'checked' })).toMatchObject({ right: { hold: 'RELEASED' } });
    expect(await ledger.returnDeposit(returned, { adminUserId: 9, reason: 'sent back' })).toMatchObject({ right: { hold: 'RETURNED' } });
    expect(await ledger.balances(USER)).toEqual([{ userId: USER, currencyId: 'USDT', balance: '12.5' }]);
    await projectAll(env.store, env.pool);
    const report = await verifyLedger({ store: env.store, pool: env.pool, seals: false });
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    const { rows } = await env.pool.query<{ account: string; balance: string }>(
      `SELECT account, trim_scale(balance)::text AS balance FROM account_balances
       WHERE currency_id = 'USDT' AND account LIKE 'house:deposits%' ORDER BY account`,
    );
    expect(rows).toEqual([
      { account: 'house:deposits', balance: '-20.5' },
      { account: 'house:deposits-held', balance: '1' },
      { account: 'house:deposits-returned', balance: '7' },
    ]);
  });
});
