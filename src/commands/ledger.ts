import { affiliateClaimUseCases } from '../wallet/affiliate-claims/affiliate-claims.use-case.js';
import { adminTipUseCases } from '../wallet/admin-tips/admin-tips.use-case.js';
import { balanceSetUseCases } from '../wallet/balance-set/balance-set.use-case.js';
import { betUseCases } from '../wallet/bets/bets.use-case.js';
import { depositUseCases } from '../wallet/deposits/deposits.use-case.js';
import { prizeUseCases } from '../wallet/prizes/prizes.use-case.js';
import { withdrawalUseCases } from '../wallet/withdrawals/withdrawals.use-case.js';
import type { EntityKeys } from './entity-keys.js';
import type { Ledger } from './ledger.types.js';
import type { Rates } from './rates.js';
import { balanceViews } from './views.js';
import { createWalletKit, type LedgerDeps } from './wallet-kit.js';
import type { WalletHandler } from './wallet.handler.js';

export type { BetGuard, LedgerDeps } from './wallet-kit.js';

export type LedgerInternals = Readonly<{ handler: WalletHandler; keys: EntityKeys; rates: Rates }>;

/** Every money flow's use cases over one wallet handler: what the routes, sockets and scheduler call. */
export const createLedger = (deps: LedgerDeps): Ledger & { internals: LedgerInternals } => {
  const kit = createWalletKit(deps);
  return {
    ...depositUseCases(kit),
    ...betUseCases(kit),
    ...withdrawalUseCases(kit),
    ...adminTipUseCases(kit),
    ...balanceSetUseCases(kit),
    ...prizeUseCases(kit),
    ...affiliateClaimUseCases(kit),
    balances: async (userId) => balanceViews(await kit.handler.load(userId)),
    internals: { handler: kit.handler, keys: kit.keys, rates: kit.rates },
  };
};
