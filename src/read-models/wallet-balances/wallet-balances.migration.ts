import type { Migration } from '../../infra/migrate.js';

/** Wallet balances; 0101 also creates `account_balances`, the account-balances read model's table. */
export const walletBalancesMigrations: readonly Migration[] = [
  {
    id: '0101_balances',
    sql: `
      CREATE TABLE wallet_balances (
        user_id bigint NOT NULL,
        currency_id text NOT NULL,
        balance numeric NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, currency_id)
      );
      CREATE INDEX wallet_balances_currency_balance ON wallet_balances (currency_id, balance);
      -- The trial balance: every house and user account; per currency the balances sum to zero.
      CREATE TABLE account_balances (
        account text NOT NULL,
        currency_id text NOT NULL,
        balance numeric NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (account, currency_id)
      );`,
  },
  {
    // No query could use it: the users list filters on coalesce(pt.balance, 0) over a LEFT JOIN and sorts on the USD sum.
    // Every balance change paid for it, and it kept each update from being HOT.
    id: '0470_wallet_balances_unused_index',
    sql: `DROP INDEX IF EXISTS wallet_balances_currency_balance;`,
  },
];
