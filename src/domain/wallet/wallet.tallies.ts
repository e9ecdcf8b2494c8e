import { usdToMinor, type Minor } from '../money/money.js';
import { businessTimeOf, type WalletEvent } from './wallet.events.js';
import type { Tallies, Tally, WalletState } from './wallet.state.js';

/**
 * What the deposit and loss limits count (docs/compliance.md), per clock hour of business time, in USD minor units:
 * stakes placed, payouts and refunds paid, deposits requested (less failed ones, in the hour they were requested),
 * withdrawals requested (the AML thresholds' linked transactions).
 * Kept while a 30-day window can still see them; the wallet's state carries them, so a bet's check is decided with the
 * same fold (and the same expected revision) as the bet itself.
 */

const HOUR_MS = 3_600_000;
/** The longest window (720 hours) plus the hour it starts in. */
export const KEPT_HOURS = 721;
const EMPTY: Tally = { stakes: 0n, payouts: 0n, deposits: 0n, withdrawals: 0n };

export const hourOf = (iso: string): number => Math.floor(Date.parse(iso) / HOUR_MS);

const add = (tallies: Tallies, hour: number, change: Partial<Tally>, now: number): Tallies => {
  const t = tallies.get(hour) ?? EMPTY;
  const next = tallies.set(hour, {
    stakes: t.stakes + (change.stakes ?? 0n),
    payouts: t.payouts + (change.payouts ?? 0n),
    deposits: t.deposits + (change.deposits ?? 0n),
    withdrawals: t.withdrawals + (change.withdrawals ?? 0n),
  });
  // Hours no window can reach any more leave; only when there are more than the windows need (cheap to test).
  return next.size > KEPT_HOURS ? next.filter((_, h) => h > now - KEPT_HOURS) : next;
};

/** The tallies after `event`, folded on `before` (the state before it: a refund names the stake of the bet it undoes). */
export const tallyEvent = (tallies: Tallies, before: WalletState, event: WalletEvent): Tallies => {
  const hour = hourOf(businessTimeOf(event.data));
  switch (event.type) {
    case 'BetPlaced':
      return add(tallies, hour, { stakes: usdToMinor(event.data.usdAmount) }, hour);
    case 'BetSettled':
      return add(tallies, hour, { payouts: usdToMinor(event.data.usdPayout) }, hour);
    case 'BetRolledBack':
    case 'BetErrored': {
      const bet = before.bets.get(event.data.betId);
      return bet ? add(tallies, hour, { payouts: bet.usdAmount }, hour) : tallies;
    }
    case 'DepositRequested':
      return add(tallies, hour, { deposits: usdToMinor(event.data.usdAmount) }, hour);
    case 'WithdrawalRequested':
      return add(tallies, hour, { withdrawals: usdToMinor(event.data.usdAmount) }, hour);
    case 'DepositFailed': {
      const deposit = before.deposits.get(event.data.depositId);
      const counted = deposit?.countedAt === undefined ? undefined : hourOf(deposit.countedAt);
      return deposit && counted !== undefined && tallies.has(counted)
        ? add(tallies, counted, { deposits: -deposit.usdAmount }, hour)
        : tallies;
    }
    default:
      return tallies;
  }
};

/** Net loss (stakes less payouts), deposits and withdrawals over the last `hours` clock hours before `at`'s, and `at`'s own. */
export type WindowSums = Readonly<{ loss: Minor; deposits: Minor; withdrawals: Minor }>;
export const windowSums = (state: WalletState, at: string, hours: number): WindowSums => {
  const now = hourOf(at);
  let loss = 0n;
  let deposits = 0n;
  let withdrawals = 0n;
  for (const [h, t] of state.tallies) {
    if (h < now - hours || h > now) continue;
    loss += t.stakes - t.payouts;
    deposits += t.deposits;
    withdrawals += t.withdrawals;
  }
  return { loss, deposits, withdrawals };
};
