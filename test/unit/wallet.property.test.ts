import fc from 'fast-check';
import { isLeft } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { isBalanced, userAccount } from '../../src/domain/ledger/posting.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import { toMinor, type Minor } from '../../src/domain/money/money.js';
import type { WalletCommand } from '../../src/domain/wallet/wallet.commands.js';
import { decide } from '../../src/domain/wallet/wallet.decide.js';
import { WALLET_ERROR_TAGS } from '../../src/domain/wallet/wallet.errors.js';
import { hasMovement, type WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { evolve } from '../../src/domain/wallet/wallet.evolve.js';
import { balanceOf, initialWalletState, type WalletState } from '../../src/domain/wallet/wallet.state.js';
import {
  forgetFinal,
  holdsItem,
  itemKeysOfCommand,
  itemKeysOfEvent,
  primaryItemKey,
  withRecalled,
} from '../../src/domain/wallet/wallet.items.js';
import {
  approveWithdrawal,
  completeDeposit,
  completeWithdrawal,
  confirmDeposit,
  creditPrize,
  deductBalance,
  errorBet,
  failDeposit,
  failWithdrawal,
  placeBet,
  rejectWithdrawal,
  requestDeposit,
  requestWithdrawal,
  retryWithdrawal,
  rollbackBet,
  setBalance,
  tipUser,
} from '../support/wallet.given.js';

const USERS = [1, 2, 3] as const;
const CURRENCIES = ['BTC', 'DBC', 'ETH'] as const satisfies readonly CurrencyId[];
/** Admin withdrawal transitions are deliberately not idempotent: repeating one is refused, never applied twice. */
const NOT_IDEMPOTENT = new Set<WalletCommand['type']>(['ApproveWithdrawal', 'RejectWithdrawal', 'RetryWithdrawal']);
/** FAILED -> retry -> CONFIRMED -> fail is a cycle: once retried, a withdrawal may legitimately fail (and be retried) again. */
const CYCLIC = new Set<WalletCommand['type']>(['FailWithdrawal', 'RetryWithdrawal']);

// Small pools of ids and keys so that repeats, conflicts and illegal transitions happen often.
const id = (prefix: string) => fc.integer({ min: 1, max: 4 }).map((n) => `${prefix}${n}`);
const currency = fc.constantFrom(...CURRENCIES);
const amount = fc.oneof(
  { weight: 10, arbitrary: fc.bigInt({ min: 1n, max: 500n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -3n, max: 0n }) },
);
/** Builders take decimal strings; amounts here are raw minor units, so patch them in. */
const withAmount = <T extends { data: { amount: Minor } }>(c: T, a: Minor): T => ({ ...c, data: { ...c.data, amount: a } });
const settleMinor = (b: string, payout: Minor): WalletCommand => ({ type: 'SettleBet', data: { betId: b, payout, usdPayout: 0n } });
const setBalanceMinor = (k: string, c: CurrencyId, balance: Minor): WalletCommand => {
  const cmd = setBalance(k, c, '0');
  return { ...cmd, data: { ...cmd.data, balance } };
};

const command: fc.Arbitrary<WalletCommand> = fc.oneof(
  fc.tuple(id('d'), id('x'), currency, amount).map(([d, x, c, a]) => withAmount(requestDeposit(d, c, '1', { externalId: x }), a)),
  id('d').map((d) => confirmDeposit(d)),
  { weight: 3, arbitrary: id('d').map((d) => completeDeposit(d)) },
  id('d').map((d) => failDeposit(d)),
  { weight: 3, arbitrary: fc.tuple(id('b'), currency, amount).map(([b, c, a]) => withAmount(placeBet(b, c, '1'), a)) },
  fc.tuple(id('b'), fc.bigInt({ min: -1n, max: 1000n })).map(([b, p]) => settleMinor(b, p)),
  id('b').map(rollbackBet),
  id('b').map((b) => errorBet(b)),
  fc.tuple(id('w'), id('k'), currency, amount).map(([w, k, c, a]) => withAmount(requestWithdrawal(w, c, '1', { operationKey: k }), a)),
  id('w').map((w) => approveWithdrawal(w)),
  id('w').map((w) => rejectWithdrawal(w)),
  id('w').map((w) => retryWithdrawal(w)),
  fc.tuple(id('w'), fc.constantFrom('0xa', '0xb')).map(([w, h]) => completeWithdrawal(w, h)),
  fc.tuple(id('w'), fc.constantFrom('down', 'timeout')).map(([w, r]) => failWithdrawal(w, r)),
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 4 }), id('k'), currency, amount)
      .map(([t, k, c, a]) => withAmount(tipUser(t, c, '1', { operationKey: k }), a)),
  },
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), id('k'), currency, amount)
    .map(([t, k, c, a]) => withAmount(deductBalance(t, c, '1', { operationKey: k }), a)),
  fc.tuple(id('k'), currency, fc.bigInt({ min: -1n, max: 800n })).map(([k, c, b]) => setBalanceMinor(k, c, b)),
  fc.tuple(id('k'), currency, amount).map(([k, c, a]) => withAmount(creditPrize(k, c, '1'), a)),
);
type Step = Readonly<{ userId: number; command: WalletCommand }>;
const user = fc.constantFrom(...USERS);
const transitions = <T>(options: readonly T[]) => fc.array(fc.constantFrom(...options), { minLength: 1, maxLength: 4 });
/** Often a chain starts by funding the wallet (a prize: its own key space), so debits succeed as well as fail. */
const funding = fc.option(fc.bigInt({ min: 1n, max: 1000n }), { freq: 3 });
const fund = (key: string, c: CurrencyId, f: Minor | null): WalletCommand[] =>
  f === null ? [] : [withAmount(creditPrize(`fund-${key}`, c, '1'), f)];
const withdrawalPath = fc.oneof(
  transitions(['approve', 'reject', 'retry', 'complete', 'fail'] as const),
  fc.constantFrom(
    ['approve', 'fail', 'retry', 'complete'] as const,
    ['approve', 'fail', 'reject'] as const,
    ['approve', 'fail', 'retry', 'fail', 'retry', 'complete'] as const,
    ['approve', 'complete', 'fail', 'reject'] as const,
  ),
);
/** Lifecycles of one entry in one wallet, so that deep states (FAILED -> retried -> COMPLETE ...) are reached often. */
const lifecycle: fc.Arbitrary<readonly Step[]> = fc.oneof(
  fc
    .tuple(user, id('d'), currency, amount, transitions(['confirm', 'complete', 'fail'] as const))
    .map(([u, d, c, a, ts]) =>
      [
        withAmount(requestDeposit(d, c, '1', { externalId: `x-${d}` }), a),
        ...ts.map((t) => (t === 'confirm' ? confirmDeposit(d) : t === 'complete' ? completeDeposit(d) : failDeposit(d))),
      ].map((cmd) => ({ userId: u, command: cmd })),
    ),
  fc
    .tuple(
      user,
      id('b'),
      currency,
      amount,
      fc.bigInt({ min: 0n, max: 1000n }),
      transitions(['settle', 'rollback', 'error'] as const),
      funding,
    )
    .map(([u, b, c, a, p, ts, f]) =>
      [
        ...fund(`${u}-${b}-${f}`, c, f),
        withAmount(placeBet(b, c, '1'), a),
        ...ts.map((t) => (t === 'settle' ? settleMinor(b, p) : t === 'rollback' ? rollbackBet(b) : errorBet(b))),
      ].map((cmd) => ({ userId: u, command: cmd })),
    ),
  fc.tuple(user, id('w'), currency, amount, withdrawalPath, funding).map(([u, w, c, a, ts, f]) =>
    [
      ...fund(`${u}-${w}-${f}`, c, f),
      withAmount(requestWithdrawal(w, c, '1', { operationKey: `key-${w}` }), a),
      ...ts.map(
        (t) =>
          ({
            approve: approveWithdrawal(w),
            reject: rejectWithdrawal(w),
            retry: retryWithdrawal(w),
            complete: completeWithdrawal(w),
            fail: failWithdrawal(w),
          })[t],
      ),
    ].map((cmd) => ({ userId: u, command: cmd })),
  ),
);
const steps = (maxChains: number) =>
  fc
    .array(fc.oneof({ weight: 3, arbitrary: fc.record({ userId: user, command }).map((s) => [s]) }, { weight: 2, arbitrary: lifecycle }), {
      minLength: 1,
      maxLength: maxChains,
      size: 'max',
    })
    .map((chains) => chains.flat());

type World = {
  wallets: Map<number, WalletState>;
  log: { userId: number; event: WalletEvent }[];
  done: { userId: number; command: WalletCommand }[];
};

const legs = (event: WalletEvent) => (hasMovement(event) ? event.data.postings : []);
const sumBy = (entries: readonly (readonly [string, Minor])[]): Map<string, Minor> => {
  const m = new Map<string, Minor>();
  for (const [k, v] of entries) m.set(k, (m.get(k) ?? 0n) + v);
  return m;
};
const nonZero = (m: Map<string, Minor>) => new Map([...m].filter(([, v]) => v !== 0n));
const accountTotals = (world: World) =>
  sumBy(
    world.log.flatMap(({ event }) => legs(event).map((p) => [`${p.account}|${p.currencyId}`, toMinor(p.currencyId, p.amount)] as const)),
  );

const checkInvariants = (world: World): void => {
  const perAccount = accountTotals(world);
  // The sum of every account per currency, across all events of all wallets, is zero.
  const perCurrency = sumBy([...perAccount].map(([key, v]) => [key.split('|')[1] ?? '', v] as const));
  expect(nonZero(perCurrency)).toEqual(new Map());

  for (const [userId, state] of world.wallets) {
    // No negative balance, and each balance is exactly the sum of the wallet's own legs.
    for (const c of CURRENCIES) {
      expect(balanceOf(state, c) >= 0n).toBe(true);
      expect(balanceOf(state, c)).toBe(perAccount.get(`${userAccount(userId)}|${c}`) ?? 0n);
    }
  }
  // Held funds are exactly the withdrawals still held; house:bets holds the stakes of bets not refunded.
  const all = [...world.wallets.values()];
  for (const c of CURRENCIES) {
    const held = all
      .flatMap((s) => [...s.withdrawals.values()])
      .filter((w) => w.currencyId === c && ['PENDING', 'CONFIRMED', 'FAILED'].includes(w.status));
    expect(perAccount.get(`house:withdrawals-held|${c}`) ?? 0n).toBe(held.reduce((s, w) => s + w.amount, 0n));
    const staked = all.flatMap((s) => [...s.bets.values()]).filter((b) => b.currencyId === c && ['CREATED', 'SETTLED'].includes(b.status));
    expect(perAccount.get(`house:bets|${c}`) ?? 0n).toBe(staked.reduce((s, b) => s + b.amount, 0n));
  }
};

const run = (steps: readonly Step[]): World => {
  const world: World = { wallets: new Map(USERS.map((u) => [u, initialWalletState(u)])), log: [], done: [] };
  steps.forEach(({ userId, command: cmd }, i) => {
    const meta = { userId, now: new Date(Date.UTC(2025, 0, 1) + i * 1000) };
    const before = world.wallets.get(userId) ?? initialWalletState(userId);
    const result = decide(cmd, before, meta);
    if (isLeft(result)) {
      expect(WALLET_ERROR_TAGS).toContain(result.left._tag);
      return;
    }
    let state = before;
    for (const event of result.right) {
      expect(isBalanced(legs(event))).toBe(true);
      state = evolve(state, event);
      // balanceAfter is what the fold gives, not a separate computation that could drift.
      if (hasMovement(event)) expect(toMinor(event.data.currencyId, event.data.balanceAfter)).toBe(balanceOf(state, event.data.currencyId));
      world.log.push({ userId, event });
    }
    world.wallets.set(userId, state);
    if (result.right.length > 0) {
      world.done.push({ userId, command: cmd });
      // Re-running what just succeeded is a no-op: no events (admin withdrawal transitions are refused instead).
      const again = decide(cmd, state, meta);
      if (NOT_IDEMPOTENT.has(cmd.type)) expect(again).toMatchObject({ _tag: 'Left', left: { _tag: 'WithdrawalInvalidState' } });
      else expect(again).toEqual({ _tag: 'Right', right: [] });
    }
    checkInvariants(world);
  });
  return world;
};

describe('wallet ledger properties', () => {
  it('when random commands run over several wallets, then balances never go negative and every posting balances', () => {
    fc.assert(
      fc.property(steps(40), (s) => {
        run(s);
      }),
      { numRuns: 300 },
    );
  });

  it('when any already-successful command is re-run at the end, then it produces no events (except the retry/fail cycle)', () => {
    fc.assert(
      fc.property(steps(40), (s) => {
        const world = run(s);
        for (const { userId, command: cmd } of world.done.filter((d) => !CYCLIC.has(d.command.type))) {
          const state = world.wallets.get(userId) ?? initialWalletState(userId);
          const again = decide(cmd, state, { userId, now: new Date(Date.UTC(2026, 0, 1)) });
          if (!isLeft(again)) expect(again.right).toEqual([]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('when each wallet keeps only balances and open items and looks final items up by key, then every decision equals the one on the whole history', () => {
    /** What the store's lookup returns: the events under the keys, and all events of the items they name. */
    const lookUp = (log: readonly WalletEvent[], keys: readonly string[]): WalletEvent[] => {
      const found = log.filter((e) => itemKeysOfEvent(e.type, e.data).some((k) => keys.includes(k)));
      const all = new Set([...keys, ...found.map((e) => primaryItemKey(e.data)!)]);
      return log.filter((e) => itemKeysOfEvent(e.type, e.data).some((k) => all.has(k)));
    };
    const byId = <T extends { id: string }>(xs: T[]): T[] => xs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const openOf = (st: WalletState) => ({
      balances: st.balances.toJS(),
      bets: byId([...st.bets.values()].filter((b) => b.status === 'CREATED')),
      deposits: byId([...st.deposits.values()].filter((d) => d.status !== 'COMPLETE' && d.status !== 'FAILED')),
      withdrawals: byId([...st.withdrawals.values()].filter((w) => w.status !== 'COMPLETE' && w.status !== 'DENIED')),
    });
    fc.assert(
      fc.property(steps(40), (s) => {
        const full = new Map<number, WalletState>(USERS.map((u) => [u, initialWalletState(u)]));
        const kept = new Map<number, WalletState>(USERS.map((u) => [u, initialWalletState(u)]));
        const logs = new Map<number, WalletEvent[]>(USERS.map((u) => [u, []]));
        s.forEach(({ userId, command: cmd }, i) => {
          const meta = { userId, now: new Date(Date.UTC(2025, 0, 1) + i * 1000) };
          const expected = decide(cmd, full.get(userId)!, meta);
          const missing = itemKeysOfCommand(cmd).filter((k) => !holdsItem(kept.get(userId)!, k));
          const recalled = lookUp(logs.get(userId)!, missing);
          const deciding = withRecalled(kept.get(userId)!, recalled);
          expect(decide(cmd, deciding, meta)).toEqual(expected);
          if (isLeft(expected)) return;
          full.set(userId, expected.right.reduce(evolve, full.get(userId)!));
          logs.get(userId)!.push(...expected.right);
          const touched = [...recalled, ...expected.right].flatMap((e) => itemKeysOfEvent(e.type, e.data));
          kept.set(userId, forgetFinal(expected.right.reduce(evolve, deciding), touched));
          expect(openOf(kept.get(userId)!)).toEqual(openOf(full.get(userId)!));
          expect(kept.get(userId)!.bets.size + kept.get(userId)!.operations.size + kept.get(userId)!.claims.size).toBe(
            openOf(full.get(userId)!).bets.length,
          );
        });
      }),
      { numRuns: 300 },
    );
  });

  it('when random commands run, then a good share of them succeed (the generator exercises real money movement)', () => {
    const samples = fc.sample(steps(40), { numRuns: 30, seed: 42 });
    const moved = samples.map((s) => run(s).log.filter(({ event }) => legs(event).length > 0).length);
    expect(moved.reduce((a, b) => a + b, 0) / samples.length).toBeGreaterThan(10);
  });
});
