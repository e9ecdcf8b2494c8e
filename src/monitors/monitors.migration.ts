import type { Migration } from '../infra/migrate.js';

/** Monitors and alerts (docs/compliance.md, Monitors and alerts): definitions, edge state, alerts, webhook targets, outbox. */
export const monitorsMigrations: readonly Migration[] = [
  {
    id: '0570_monitors',
    sql: `
      CREATE TABLE monitors (
        id bigserial PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('bet-win-over', 'withdrawal-over', 'aml-flag')),
        threshold_usd numeric CHECK (threshold_usd >= 0),
        enabled boolean NOT NULL DEFAULT true,
        created_by bigint NOT NULL,
        created_at timestamptz NOT NULL
      );
      -- One alert per monitor and subject; a single-fact monitor's subject is its fact (a bet, a withdrawal, a flag),
      -- so a replayed fact finds its alert there and fires nothing.
      CREATE TABLE monitor_alerts (
        id bigserial PRIMARY KEY,
        monitor_id bigint NOT NULL REFERENCES monitors (id),
        monitor_type text NOT NULL,
        subject text NOT NULL,
        user_id bigint,
        amount_usd numeric,
        event_id uuid NOT NULL,
        raised_at timestamptz NOT NULL,
        UNIQUE (monitor_id, subject)
      );
      CREATE INDEX monitor_alerts_raised ON monitor_alerts (raised_at DESC, id DESC);
      -- A webhook per monitor type. The secret signs bodies (HMAC-SHA256), so it is kept as given, not hashed.
      CREATE TABLE monitor_webhooks (
        id bigserial PRIMARY KEY,
        monitor_type text NOT NULL,
        url text NOT NULL,
        secret text NOT NULL,
        failing_since timestamptz,
        disabled_at timestamptz,
        created_by bigint NOT NULL,
        created_at timestamptz NOT NULL
      );
      -- The outbox: one row per alert and webhook, written with the alert; id is the stable delivery id.
      CREATE TABLE monitor_deliveries (
        id text PRIMARY KEY,
        alert_id bigint NOT NULL REFERENCES monitor_alerts (id),
        webhook_id bigint NOT NULL REFERENCES monitor_webhooks (id),
        body text NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        delivered_at timestamptz,
        last_error text
      );
      CREATE INDEX monitor_deliveries_due ON monitor_deliveries (next_attempt_at) WHERE delivered_at IS NULL;
    `,
  },
];
