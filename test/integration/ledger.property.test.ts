import fc from 'fast-check';
import { isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaleOf, type CurrencyId } from '../../src/domain/money/currency.js';
import { parseDecimal, toMinor, type DecimalString } from '../../src/domain/money/money.js';
import { isBalanced, sumPostings, type Posting } from '../../src/domain/ledger/posting.js';
import { walletStream } from '../../src/domain/wallet/wallet.events.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { countsMismatches } from '../support/list-counts.js';
import { createLedgerEnv, type LedgerEnv } from '../support/ledger-env.js';

const game = { name: 'Crash', slug: 'crash', type: 'ORIGINALS', provider: { name: 'house' } };
const CURRENCIES = ['BTC', 'USDT', 'DBC'] as const;

/** One step of a random session; indices pick earlier entities modulo how many exist. */
type Op =
  | { op: 'deposit'; user: number; currency: number; amount: number; complete: boolean }
  | { op: 'bet'; user: number; currency: number; amount: number }
  | { op: 'settle'; bet: number; multiplierPct: number }
  | { op: 'rollback'; bet: number }
  | { op: 'withdraw'; user: number; currency: number; amount: number }
  | { op: 'decide'; withdrawal: number; action: 'approve' | 'reject' | 'retry' | 'complete' | 'fail' }
  | { op: 'tip'; user: number; currency: number; amount: number; deduct: boolean }
  | { op: 'setBalance'; user: number; currency: number; amount: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('deposit' as const),
    user: fc.nat(3),
    currency: fc.nat(2),
    amount: fc.integer({ min: 1, max: 5000 }),
    complete: fc.boolean(),
  }),
  fc.record({ op: fc.constant('bet' as const), user: fc.nat(3), currency: fc.nat(2), amount: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ op: fc.constant('settle' as const), bet: fc.nat(), multiplierPct: fc.integer({ min: 0, max: 500 }) }),
  fc.record({ op: fc.constant('rollback' as const), bet: fc.nat() }),
  fc.record({ op: fc.constant('withdraw' as const), user: fc.nat(3), currency: fc.nat(2), amount: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({
    op: fc.constant('decide' as const),
    withdrawal: fc.nat(),
    action: fc.constantFrom('approve', 'reject', 'retry', 'complete', 'fail'),
  }),
  fc.record({
    op: fc.constant('tip' as const),
    user: fc.nat(3),
    currency: fc.nat(2),
    amount: fc.integer({ min: 1, max: 2000 }),
    deduct: fc.boolean(),
  }),
  fc.record({ op: fc.constant('setBalance' as const), user: fc.nat(3), currency: fc.nat(2), amount: fc.integer({ min: 0, max: 9000 }) }),
);

/** Amounts in hundredths of a unit, shown at the currency's precision. */
const decimal = (hundredths: number): string => (hundredths / 100).toFixed(2);

describe('ledger invariants over random command sequences (real PostgreSQL, real projector)', () => {
  let env: LedgerEnv;
  let projector: ReturnType<typeof startProjector>;
  let run = 0;
  beforeAll(async () => {
    env = await createLedgerEnv('property');
    projector = startProjector({ store: env.store, pool: env.pool, projections: allProjections });
  });
  afterAll(async () => {
    await projector.stop();
    await env.close();
  });

  it('after every command: no negative balance, balanced postings, accounts sum to zero, read models equal the fold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 25 }), async (ops) => {
        run += 1;
        const users = [0, 1, 2, 3].map((u) => run * 10 + u + 1);
        const bets: { id: string; hundredths: number }[] = [];
        const withdrawals: string[] = [];
        for (const [step, o] of ops.entries()) {
          await execute(o, users, bets, withdrawals, `${run}-${step}`);
          await checkInvariants(users);
        }
      }),
      { numRuns: 12 },
    );
  });

  async function execute(
    o: Op,
    users: number[],
    bets: { id: string; hundredths: number }[],
    withdrawals: string[],
    tag: string,
  ): Promise<void> {
    const { ledger } = env;
    const currencyId: CurrencyId = 'currency' in o ? CURRENCIES[o.currency]! : 'USDT';
    switch (o.op) {
      case 'deposit': {
        const d = await ledger.requestDeposit({
          externalId: tag,
          userId: users[o.user]!,
          providerId: 'TEST',
          networkId: 'ETH',
          currencyId,
          amount: decimal(o.amount),
        });
        if (o.complete && isRight(d)) await ledger.completeDeposit(d.right.deposit.id, { txHash: `0x${tag}` });
        return;
      }
      case 'bet': {
        const b = await ledger.placeBet({
          id: `bet-${tag}`,
          userId: users[o.user]!,
          roundId: tag,
          gameId: 1,
          gameIdentity: game,
          currencyId,
          amount: decimal(o.amount),
        });
        if (isRight(b)) bets.push({ id: b.right.bet.id, hundredths: o.amount });
        return;
      }
      case 'settle': {
        const bet = bets[o.bet % Math.max(bets.length, 1)];
        if (bet) await ledger.settleBet(bet.id, { payout: decimal(Math.floor((bet.hundredths * o.multiplierPct) / 100)) });
        return;
      }
      case 'rollback': {
        const bet = bets[o.bet % Math.max(bets.length, 1)];
        if (bet) await ledger.rollbackBet(bet.id);
        return;
      }
      case 'withdraw': {
        const w = await ledger.requestWithdrawal({
          userId: users[o.user]!,
          currencyId,
          networkId: 'ETH',
          providerId: 'PROVIDER_A',
          amount: decimal(o.amount),
          recipientAddress: '0xabc',
        });
        if (isRight(w)) withdrawals.push(w.right.withdrawal.id);
        return;
      }
      case 'decide': {
        const id = withdrawals[o.withdrawal % Math.max(withdrawals.length, 1)];
        if (!id) return;
        if (o.action === 'approve') await ledger.approveWithdrawal(id, 999);
        if (o.action === 'reject') await ledger.rejectWithdrawal(id, 999, 'risk');
        if (o.action === 'retry') await ledger.retryWithdrawal(id, 999);
        if (o.action === 'complete') await ledger.completeWithdrawal(id, { txHash: `0x${tag}` });
        if (o.action === 'fail') await ledger.failWithdrawal(id, { failedReason: 'provider down' });
        return;
      }
      case 'tip': {
        const input = {
          recipientUserId: users[o.user]!,
          adminUserId: 999,
          currencyId,
          amount: decimal(o.amount),
          notes: 'prop',
          operationKey: tag,
        };
        await (o.deduct ? ledger.deductBalance(input) : ledger.tip(input));
        return;
      }
      case 'setBalance':
        await ledger.setBalance({ userId: users[o.user]!, adminUserId: 999, currencyId, balance: decimal(o.amount), operationKey: tag });
        return;
    }
  }

  async function checkInvariants(users: number[]): Promise<void> {
    const all = await env.store.readAll({ maxCount: 1_000_000 });
    const totals = new Map<CurrencyId, bigint>();
    for (const e of all) {
      const postings = (e.data as { postings?: Posting[] }).postings ?? [];
      expect(isBalanced(postings), `event ${e.type} ${e.id} is unbalanced`).toBe(true);
      for (const [c, s] of sumPostings(postings)) totals.set(c, (totals.get(c) ?? 0n) + s);
    }
    for (const [c, s] of totals) expect(s, `accounts of ${c} must sum to zero`).toBe(0n);

    const folded = new Map<string, bigint>();
    for (const userId of users) {
      for (const e of await env.store.readStream(walletStream(userId))) {
        for (const p of (e.data as { postings?: Posting[] }).postings ?? []) {
          if (p.account !== `user:${userId}`) continue;
          const k = `${userId}:${p.currencyId}`;
          folded.set(k, (folded.get(k) ?? 0n) + toMinor(p.currencyId, p.amount));
        }
      }
    }
    for (const [k, v] of folded) expect(v >= 0n, `balance ${k} is negative`).toBe(true);

    await projector.waitFor(env.ledger.internals.handler.lastPosition());
    const { rows } = await env.pool.query<{ user_id: string; currency_id: CurrencyId; balance: string }>(
      'SELECT user_id, currency_id, balance::text AS balance FROM wallet_balances WHERE user_id = ANY($1::bigint[])',
      [users],
    );
    const projected = new Map(
      rows.map((r) => [`${r.user_id}:${r.currency_id}`, parseDecimal(r.balance, scaleOf(r.currency_id)) as bigint]),
    );
    const nonZero = (m: Map<string, bigint>) => new Map([...m].filter(([, v]) => v !== 0n));
    expect(nonZero(projected)).toEqual(nonZero(folded));

    const { rows: accounts } = await env.pool.query<{ currency_id: CurrencyId; total: string }>(
      'SELECT currency_id, sum(balance)::text AS total FROM account_balances GROUP BY currency_id',
    );
    for (const a of accounts) expect(toMinor(a.currency_id, a.total as DecimalString), `read-model accounts of ${a.currency_id}`).toBe(0n);

    // The lists' kept counts equal a fresh count(*) of their rows, key by key.
    expect(await countsMismatches(env.pool)).toEqual([]);
  }
});
