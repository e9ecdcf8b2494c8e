import { affiliateCommissionProjection } from './affiliate-commission.projection.js';
import { accountBalancesProjection } from './account-balances.projection.js';
import { adminAuditProjection } from './admin-audit.projection.js';
import { adminTipsProjection } from './admin-tips.projection.js';
import { betsProjection } from './bets.projection.js';
import { depositsProjection } from './deposits.projection.js';
import { notificationsProjection } from './notifications.projection.js';
import type { Projection } from './projection.js';
import { transactionsProjection } from './transactions.projection.js';
import { signUpEffectsProjection } from './sign-up-effects.projection.js';
import { rakebackProjection } from './rakeback.projection.js';
import { usersProjection } from './users.projection.js';
import { userStatsUsdProjection } from './user-stats-usd.projection.js';
import { walletBalancesProjection } from './wallet-balances.projection.js';
import { withdrawalsProjection } from './withdrawals.projection.js';

export type { Projection, Sql } from './projection.js';
export { startProjector, type Projector, type ProjectorOptions } from './projection-runner.js';
export { rebuildProjections } from './rebuild.js';
export { migrateReadModels, readModelMigrations } from './read-models.migrations.js';

/** Every read model, in the order the runner applies their statements within a batch. */
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
