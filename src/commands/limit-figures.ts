import { LIMIT_WINDOWS, WINDOW_HOURS } from '../domain/limits/gambling-limits.js';
import { usdFromMinor, usdToMinor, type DecimalString, type Minor } from '../domain/money/money.js';
import { businessTimeOf, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { windowSums } from '../domain/wallet/wallet.tallies.js';
import type { WalletState } from '../domain/wallet/wallet.state.js';
import type { BetGuardCheck } from '../infra/event-store/event-store.port.js';
import { BET_GUARD } from './bet-guard.js';
import type { WalletGuard } from './wallet.handler.js';

/**
 * A check's figures (FIGURES in bet-guard.ts) from the wallet with the command folded in, over windows ending at the
 * command's business time: the net losses for a bet, the deposits for a deposit request.
 */
export const limitFigures = (state: WalletState, businessTime: string, what: 'loss' | 'deposits'): (string | null)[] => {
  const sums = LIMIT_WINDOWS.map((w) => usdFromMinor(windowSums(state, businessTime, WINDOW_HOURS[w])[what]));
  const none = LIMIT_WINDOWS.map(() => null);
  return what === 'loss' ? [...sums, ...none] : [...none, ...sums];
};

/**
 * The bet guard of a bet or a deposit request, made as the command is decided: the rule runs at the recording time
 * (the limits in force then, the self-exclusion), the windows end at the business time (docs/compliance.md).
 */
export const limitGuard =
  (userId: number, usdAmount: string | null, what: 'loss' | 'deposits'): WalletGuard =>
  (state: WalletState, events: readonly WalletEvent[]): BetGuardCheck => {
    const event = events[0]!;
    return {
      rule: BET_GUARD,
      userId,
      usdAmount,
      at: new Date(event.data.at),
      figures: limitFigures(state, businessTimeOf(event.data), what),
    };
  };

/** For stores that cannot check in the append: the figures of a command about to add `usdAmount` to `what`, read beforehand. */
export const figuresWith = (state: WalletState, businessTime: string, what: 'loss' | 'deposits', usdAmount: Minor): (string | null)[] =>
  limitFigures(state, businessTime, what).map((f) => (f === null ? null : usdFromMinor(usdToMinor(f as DecimalString) + usdAmount)));
