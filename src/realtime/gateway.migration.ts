import type { Migration } from '../infra/migrate.js';

export const gatewayMigrations: Migration[] = [
  {
    id: '0300_gateway_deauth_notify',
    sql: `
      CREATE FUNCTION gateway_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('deauth:' || current_schema(),
            json_build_object('userId', OLD.user_id, 'sessionId', OLD.id, 'reason', 'SESSION_ENDED')::text);
          RETURN OLD;
        END IF;
        IF NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL THEN
          PERFORM pg_notify('deauth:' || current_schema(),
            json_build_object('userId', NEW.user_id, 'sessionId', NEW.id, 'reason', 'SESSION_ENDED')::text);
        END IF;
        RETURN NEW;
      END $$;

      CREATE FUNCTION gateway_user_banned() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.is_banned AND (TG_OP = 'INSERT' OR NOT OLD.is_banned) THEN
          PERFORM pg_notify('deauth:' || current_schema(),
            json_build_object('userId', NEW.user_id, 'reason', 'BANNED')::text);
        END IF;
        RETURN NEW;
      END $$;

      -- Schemas with read models but no identity tables (ledger-only tests) get the functions only.
      DO $$
      BEGIN
        IF to_regclass('sessions') IS NOT NULL THEN
          CREATE TRIGGER sessions_gateway_deauth AFTER UPDATE OF revoked_at OR DELETE ON sessions
            FOR EACH ROW EXECUTE FUNCTION gateway_session_ended();
        END IF;
        IF to_regclass('user_access') IS NOT NULL THEN
          CREATE TRIGGER user_access_gateway_deauth AFTER INSERT OR UPDATE OF is_banned ON user_access
            FOR EACH ROW EXECUTE FUNCTION gateway_user_banned();
        END IF;
      END $$;
    `,
  },
];
