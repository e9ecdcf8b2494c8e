import type { CurrencyId } from '../../../src/domain/money/currency.js';
import { formatDecimal, fromMinor, toMinor, type DecimalString } from '../../../src/domain/money/money.js';
import type { Scripted, WalletScript } from './wallet-fixtures.js';

/** A small seeded PRNG (mulberry32): failures in random tests can be replayed from the logged seed. */
export const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

type Open = { user: number; id: string; cur: CurrencyId; amount: string };
type Withdrawal = Open & { status: 'PENDING' | 'CONFIRMED' | 'FAILED' };
const CURRENCIES: readonly CurrencyId[] = ['BTC', 'USDT', 'DBC'];

/**
 * Random but always valid wallet activity over a few users: deposits, bets and withdrawals in every
 * state, tips, set-balance and prizes, following the state machines in decisions.md.
 */
export class RandomWallets {
  private n = 0;
  private readonly deposits: (Open & { confirmed: boolean })[] = [];
  private readonly bets: (Open & { tx: string })[] = [];
  private readonly withdrawals: Withdrawal[] = [];

  constructor(
    private readonly w: WalletScript,
    private readonly rng: () => number,
    private readonly users = 5,
  ) {}

  private int(max: number): number {
    return Math.floor(this.rng() * max);
  }
  private amount(): string {
    return formatDecimal(BigInt(1 + this.int(5000)), 2);
  }
  private take<T>(list: T[]): T | undefined {
    return list.length === 0 ? undefined : list.splice(this.int(list.length), 1)[0];
  }
  private covers(user: number, cur: CurrencyId, amount: string): boolean {
    return toMinor(cur, this.w.balance(user, cur)) >= toMinor(cur, amount as DecimalString);
  }

  next(): Scripted {
    for (;;) {
      const s = this.attempt();
      if (s) return s;
    }
  }

  private attempt(): Scripted | undefined {
    const w = this.w;
    const user = 1 + this.int(this.users);
    const cur = CURRENCIES[user % CURRENCIES.length]!;
    const amount = this.amount();
    const id = `${++this.n}`;
    switch (this.int(12)) {
      case 0:
        this.deposits.push({ user, id: `d${id}`, cur, amount, confirmed: false });
        return w.depositRequested(user, `d${id}`, cur, amount, amount);
      case 1: {
        const d = this.take(this.deposits);
        if (!d) return undefined;
        if (!d.confirmed && this.rng() < 0.5) {
          this.deposits.push({ ...d, confirmed: true });
          return w.depositConfirmed(d.user, d.id, `0x${d.id}`);
        }
        return this.rng() < 0.8 ? w.depositCompleted(d.user, d.id, d.cur, d.amount, d.amount) : w.depositFailed(d.user, d.id);
      }
      case 2:
      case 3: {
        if (!this.covers(user, cur, amount)) return undefined;
        const placed = w.betPlaced(user, `b${id}`, cur, amount, amount);
        this.bets.push({ user, id: `b${id}`, cur, amount, tx: placed.transactionId });
        return placed;
      }
      case 4:
      case 5: {
        const b = this.take(this.bets);
        if (!b) return undefined;
        const r = this.rng();
        if (r < 0.15) return w.betRolledBack(b.user, b.id, b.cur, b.amount, b.tx);
        if (r < 0.25) return w.betErrored(b.user, b.id, b.cur, b.amount, b.tx);
        const payout = r < 0.5 ? '0' : fromMinor(b.cur, toMinor(b.cur, b.amount as DecimalString) * 2n);
        return w.betSettled(b.user, b.id, b.cur, payout, payout, r < 0.5 ? '0' : '2');
      }
      case 6:
        if (!this.covers(user, cur, amount)) return undefined;
        this.withdrawals.push({ user, id: `w${id}`, cur, amount, status: 'PENDING' });
        return w.withdrawalRequested(user, `w${id}`, cur, amount, amount);
      case 7:
      case 8: {
        const x = this.take(this.withdrawals);
        if (!x) return undefined;
        const r = this.rng();
        if (x.status !== 'CONFIRMED' && r < 0.3) return w.withdrawalRejected(x.user, x.id, x.cur, x.amount);
        if (x.status === 'PENDING') return this.keep(x, 'CONFIRMED', w.withdrawalApproved(x.user, x.id));
        if (x.status === 'FAILED') return this.keep(x, 'CONFIRMED', w.withdrawalRetried(x.user, x.id));
        return r < 0.7 ? w.withdrawalCompleted(x.user, x.id, x.cur, x.amount) : this.keep(x, 'FAILED', w.withdrawalFailed(x.user, x.id));
      }
      case 9:
        return w.tip(user, this.n, 'add', cur, amount, amount);
      case 10:
        return this.covers(user, cur, amount) ? w.tip(user, this.n, 'deduct', cur, amount, amount) : undefined;
      default:
        return this.rng() < 0.5 ? w.balanceSet(user, cur, this.amount()) : w.prize(user, `lbu${id}`, cur, amount, amount);
    }
  }

  private keep(x: Withdrawal, status: Withdrawal['status'], s: Scripted): Scripted {
    this.withdrawals.push({ ...x, status });
    return s;
  }
}
