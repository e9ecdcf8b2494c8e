import type { Projection } from '../projections/projection.js';
import { accountBalancesProjection } from './account-balances/account-balances.projection.js';
import { adminAuditProjection } from './admin-audit/admin-audit.projection.js';
import { adminTipsProjection } from '../wallet/admin-tips/admin-tips.projection.js';
import { affiliateCommissionProjection } from './affiliate-commission/affiliate-commission.projection.js';
import { betsProjection } from '../wallet/bets/bets.projection.js';
import { depositsProjection } from '../wallet/deposits/deposits.projection.js';
import { notificationsProjection } from './notifications/notifications.projection.js';
import { periodsProjection } from '../periods/periods.projection.js';
import { financeReportsProjection } from '../finance/reports/finance-reports.projection.js';
import { rakebackProjection } from './rakeback/rakeback.projection.js';
import { signUpEffectsProjection } from './sign-up-effects/sign-up-effects.projection.js';
import { transactionsProjection } from './transactions/transactions.projection.js';
import { userStatsUsdProjection } from './user-stats-usd/user-stats-usd.projection.js';
import { usersProjection } from './users/users.projection.js';
import { walletBalancesProjection } from './wallet-balances/wallet-balances.projection.js';
import { monitorsProjection } from '../monitors/monitors.projection.js';
import { withdrawalsProjection } from '../wallet/withdrawals/withdrawals.projection.js';

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
  periodsProjection,
  financeReportsProjection,
  monitorsProjection,
];
