import type { Metrics } from '../infra/metrics.js';
import type { Ledger } from './ledger.types.js';

/** Every command of the Ledger interface (balances is a read). The check below fails the build when one is added. */
export const LEDGER_COMMANDS = [
  'requestDeposit',
  'confirmDeposit',
  'completeDeposit',
  'failDeposit',
  'releaseDeposit',
  'returnDeposit',
  'placeBet',
  'settleBet',
  'rollbackBet',
  'errorBet',
  'requestWithdrawal',
  'approveWithdrawal',
  'rejectWithdrawal',
  'retryWithdrawal',
  'completeWithdrawal',
  'failWithdrawal',
  'tip',
  'deductBalance',
  'setBalance',
  'creditPrize',
  'claimAffiliateCommission',
] as const satisfies readonly (keyof Ledger)[];
type Untimed = Exclude<keyof Ledger, (typeof LEDGER_COMMANDS)[number] | 'balances'>;
const everyCommandTimed: [Untimed] extends [never] ? true : Untimed = true;
void everyCommandTimed;

export const instrumentLedger = <L extends Ledger>(ledger: L, metrics: Metrics): L => {
  const timed: Record<string, unknown> = { ...(ledger as object) };
  for (const name of LEDGER_COMMANDS) {
    const command = ledger[name] as (...args: unknown[]) => Promise<unknown>;
    timed[name] = (...args: unknown[]) => metrics.timeCommand(name, () => command.apply(ledger, args));
  }
  return timed as L;
};
