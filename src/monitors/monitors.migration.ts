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
      -- An alert per monitor, subject and fact; a single-fact monitor's subject is its fact (a bet, a withdrawal, a flag),
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
        UNIQUE (monitor_id, subject, event_id)
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
  {
    id: '0571_monitors_net_loss',
    sql: `
      ALTER TABLE monitors DROP CONSTRAINT monitors_type_check;
      ALTER TABLE monitors ADD CONSTRAINT monitors_type_check
        CHECK (type IN ('bet-win-over', 'withdrawal-over', 'aml-flag', 'player-net-loss-over'));
      ALTER TABLE monitors ADD COLUMN window_hours int CHECK (window_hours BETWEEN 1 AND 720);
      -- Each settled bet's net loss in USD (stake less payout), kept while a net-loss monitor is enabled.
      CREATE TABLE monitor_net_loss (
        event_id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        at timestamptz NOT NULL,
        net_usd numeric NOT NULL
      );
      CREATE INDEX monitor_net_loss_user_at ON monitor_net_loss (user_id, at);
      -- The edge state: whether the monitor's condition holds for the subject (a player) as last seen.
      CREATE TABLE monitor_state (
        monitor_id bigint NOT NULL REFERENCES monitors (id),
        subject text NOT NULL,
        holds boolean NOT NULL,
        PRIMARY KEY (monitor_id, subject)
      );
      -- The settled bets in order: each one the player's net loss over each monitor's window ending at it, an alert on
      -- a false-to-true edge only. A fact seen before (a replay) is skipped whole.
      CREATE FUNCTION monitor_net_loss_step(facts json) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        f record; m record; total numeric; was boolean; holds_now boolean; alert monitor_alerts;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM monitors WHERE type = 'player-net-loss-over' AND enabled) THEN RETURN; END IF;
        FOR f IN SELECT x.*, x.stake_usd - x.payout_usd AS net_usd
          FROM json_to_recordset(facts) AS x(user_id bigint, stake_usd numeric, payout_usd numeric, event_id uuid, at timestamptz) LOOP
          INSERT INTO monitor_net_loss (event_id, user_id, at, net_usd) VALUES (f.event_id, f.user_id, f.at, f.net_usd)
            ON CONFLICT DO NOTHING;
          IF NOT FOUND THEN CONTINUE; END IF;
          FOR m IN SELECT * FROM monitors WHERE type = 'player-net-loss-over' AND enabled AND created_at <= f.at ORDER BY id LOOP
            SELECT coalesce(sum(n.net_usd), 0) INTO total FROM monitor_net_loss n
              WHERE n.user_id = f.user_id AND n.at > f.at - make_interval(hours => coalesce(m.window_hours, 24)) AND n.at <= f.at;
            holds_now := total > coalesce(m.threshold_usd, 0);
            SELECT s.holds INTO was FROM monitor_state s WHERE s.monitor_id = m.id AND s.subject = 'user:' || f.user_id;
            IF coalesce(was, false) = holds_now THEN CONTINUE; END IF;
            INSERT INTO monitor_state (monitor_id, subject, holds) VALUES (m.id, 'user:' || f.user_id, holds_now)
              ON CONFLICT (monitor_id, subject) DO UPDATE SET holds = excluded.holds;
            IF NOT holds_now THEN CONTINUE; END IF;
            INSERT INTO monitor_alerts (monitor_id, monitor_type, subject, user_id, amount_usd, event_id, raised_at)
              VALUES (m.id, m.type, 'user:' || f.user_id, f.user_id, total, f.event_id, f.at)
              ON CONFLICT DO NOTHING RETURNING * INTO alert;
            IF alert.id IS NULL THEN CONTINUE; END IF;
            INSERT INTO monitor_deliveries (id, alert_id, webhook_id, body, next_attempt_at)
            SELECT 'alert-' || alert.id || '-webhook-' || w.id, alert.id, w.id,
              json_build_object('deliveryId', 'alert-' || alert.id || '-webhook-' || w.id, 'alertId', alert.id::text,
                'monitorId', alert.monitor_id::text, 'type', alert.monitor_type, 'subject', alert.subject, 'userId', alert.user_id,
                'amountUsd', trim_scale(alert.amount_usd)::text, 'raisedAt', alert.raised_at)::text,
              alert.raised_at
            FROM monitor_webhooks w WHERE w.monitor_type = alert.monitor_type AND w.disabled_at IS NULL;
          END LOOP;
        END LOOP;
      END $$;
    `,
  },
];
