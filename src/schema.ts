import type pg from 'pg';
import { migrate, type Migration } from './infra/migrate.js';
import { eventStoreMigrations } from './infra/event-store/postgres/postgres.migration.js';
import { ledgerMigrations } from './commands/ledger.migration.js';
import { userMigrations } from './commands/identity.migration.js';
import { backOfficeContentMigrations } from './commands/back-office-content.migration.js';
import { chatMigrations } from './commands/chat.migration.js';
import { projectorMigrations } from './projections/projector.migration.js';
import { walletBalancesMigrations } from './read-models/wallet-balances/wallet-balances.migration.js';
import { transactionsMigrations } from './read-models/transactions/transactions.migration.js';
import { depositsMigrations } from './wallet/deposits/deposits.migration.js';
import { betsMigrations } from './wallet/bets/bets.migration.js';
import { withdrawalsMigrations } from './wallet/withdrawals/withdrawals.migration.js';
import { adminTipsMigrations } from './wallet/admin-tips/admin-tips.migration.js';
import { userStatsUsdMigrations } from './read-models/user-stats-usd/user-stats-usd.migration.js';
import { usersMigrations } from './read-models/users/users.migration.js';
import { signUpEffectsMigrations } from './read-models/sign-up-effects/sign-up-effects.migration.js';
import { rakebackMigrations } from './read-models/rakeback/rakeback.migration.js';
import { listCountsMigrations } from './read-models/list-counts/list-counts.migration.js';
import { affiliateCommissionMigrations } from './read-models/affiliate-commission/affiliate-commission.migration.js';
import { notificationsMigrations } from './read-models/notifications/notifications.migration.js';
import { adminAuditMigrations } from './read-models/admin-audit/admin-audit.migration.js';
import { leaderboardMigrations } from './leaderboards/leaderboards.migration.js';
import { gatewayMigrations } from './realtime/gateway.migration.js';
import { auditMigrations } from './audit/audit.migration.js';
import { periodsMigrations } from './periods/periods.migration.js';
import { financeReportsMigrations } from './finance/reports/finance-reports.migration.js';
import { reconciliationMigrations } from './finance/reconciliation/reconciliation.migration.js';
import { erasureMigrations } from './erasure/erasure.migration.js';
import { monitorsMigrations } from './monitors/monitors.migration.js';
import { complianceMigrations } from './compliance/compliance.migration.js';
import { loginStatesMigration } from './http/identity-providers/login-state.js';

const byId = (a: Migration, b: Migration): number => a.id.localeCompare(b.id);

/** Every schema change of the system, in the order they apply (by id; an applied id never changes). */
export const allMigrations: readonly Migration[] = [
  ...eventStoreMigrations, // 0001
  ...ledgerMigrations, // 0002 (superseded), 0050-0053
  ...userMigrations, // 0060-0062: identity and access, command side
  ...projectorMigrations, // 0100, 0420, 0440, 0441, 0442, 0460
  ...walletBalancesMigrations, // 0101, 0470
  ...transactionsMigrations, // 0102, 0430, 0452, 0480
  ...depositsMigrations, // 0103, 0481, 0580
  ...withdrawalsMigrations, // 0482
  ...betsMigrations, // 0104, 0160, 0451, 0472, 0473, 0483
  ...adminTipsMigrations, // 0484
  ...userStatsUsdMigrations, // 0105, 0471
  ...usersMigrations, // 0110, 0190, 0600
  ...signUpEffectsMigrations, // 0111
  ...leaderboardMigrations, // 0140
  ...rakebackMigrations, // 0150
  ...listCountsMigrations, // 0170, 0450, 0453
  ...affiliateCommissionMigrations, // 0190, 0431
  ...backOfficeContentMigrations, // 0191
  loginStatesMigration, // 0200
  ...gatewayMigrations, // 0300
  ...chatMigrations, // 0310
  ...notificationsMigrations, // 0320
  ...auditMigrations, // 0400
  ...adminAuditMigrations, // 0410
  ...periodsMigrations, // 0490
  ...financeReportsMigrations, // 0500
  ...reconciliationMigrations, // 0510
  ...erasureMigrations, // 0560
  ...complianceMigrations, // 0520-0549
  ...monitorsMigrations, // 0570, 0571
].sort(byId);

const coreMigrations = new Set<Migration>([...eventStoreMigrations, ...ledgerMigrations, ...userMigrations, loginStatesMigration]);

/** All but the core (event store, wallet, identity tables): read models, chat, gateway, audit, leaderboards, content. */
export const nonCoreMigrations: readonly Migration[] = allMigrations.filter((m) => !coreMigrations.has(m));

export const migrateAll = (pool: pg.Pool): Promise<string[]> => migrate(pool, allMigrations);

export const migrateNonCore = (pool: pg.Pool): Promise<string[]> => migrate(pool, nonCoreMigrations);
