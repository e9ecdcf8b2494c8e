import type pg from 'pg';
import { migrate, type Migration } from '../infra/migrate.js';

/** Tables the command side owns (not read models: never rebuilt, never truncated). */
export const ledgerMigrations: readonly Migration[] = [
  {
    id: '0050_ledger_keys',
    sql: `
      -- Which wallet owns an id that arrives without its user (bet settle, deposit confirm, withdrawal approve).
      -- Written before the event is appended; an entry whose append failed points at a wallet without that id: harmless.
      CREATE TABLE ledger_keys (
        kind text NOT NULL,
        key text NOT NULL,
        user_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, key)
      );
      CREATE SEQUENCE admin_tip_id_seq;
    `,
  },
  {
    id: '0051_currency_rates',
    sql: `
      -- USD per one unit of each currency; editable later through PUT /config?code=COMMON (config.rates).
      CREATE TABLE currency_rates (
        currency_id text PRIMARY KEY,
        usd_rate numeric NOT NULL CHECK (usd_rate >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO currency_rates (currency_id, usd_rate) VALUES
        ('DBC', 1), ('BTC', 65000), ('ETH', 3000), ('LTC', 80), ('TRX', 0.12), ('POL', 0.5), ('USDT', 1),
        ('BNB', 550), ('SOL', 150), ('USDC', 1), ('XRP', 0.5), ('TETH', 0), ('PLATFORM_TOKEN', 0.01);
    `,
  },
  {
    id: '0052_publisher_checkpoints',
    sql: `
      -- How far each realtime publisher has pushed the ledger to sockets (at-least-once; clients dedupe by position).
      CREATE TABLE publisher_checkpoints (
        name text PRIMARY KEY,
        position text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];

export const migrateLedger = (pool: pg.Pool): Promise<string[]> => migrate(pool, ledgerMigrations);
