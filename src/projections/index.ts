import { affiliateCommissionProjection } from '../read-models/affiliate-commission/affiliate-commission.projection.js';
import { accountBalancesProjection } from '../read-models/account-balances/account-balances.projection.js';
import { adminAuditProjection } from '../read-models/admin-audit/admin-audit.projection.js';
import { adminTipsProjection } from '../read-models/admin-tips/admin-tips.projection.js';
import { betsProjection } from '../read-models/bets/bets.projection.js';
import { depositsProjection } from '../read-models/deposits/deposits.projection.js';
import { notificationsProjection } from '../read-models/notifications/notifications.projection.js';
import type { Projection } from './projection.js';
import { transactionsProjection } from '../read-models/transactions/transactions.projection.js';
import { signUpEffectsProjection } from '../read-models/sign-up-effects/sign-up-effects.projection.js';
import { rakebackProjection } from '../read-models/rakeback/rakeback.projection.js';
import { usersProjection } from '../read-models/users/users.projection.js';
import { userStatsUsdProjection } from '../read-models/user-stats-usd/user-stats-usd.projection.js';
import { walletBalancesProjection } from '../read-models/wallet-balances/wallet-balances.projection.js';
import { withdrawalsProjection } from '../read-models/withdrawals/withdrawals.projection.js';

export type { Projection, Sql } from './projection.js';
export { startProjector, type Projector, type ProjectorOptions } from './projection-runner.js';
export { rebuildProjections } from './rebuild.js';

/** In the order the runner applies their statements within a batch. */
export const allProjections: readonly Projection[] = [
  walletBalancesProjection,
  accountBalancesProjection,
  transactionsProjection,
  depositsProjection,
  withdrawalsProjection,
  betsProjection,
  adminTipsProjection,
  userStatsUsdProjection,
  usersProjection,
  signUpEffectsProjection,
  rakebackProjection,
  affiliateCommissionProjection,
  notificationsProjection,
  adminAuditProjection,
];
