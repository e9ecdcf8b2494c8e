import type pg from 'pg';
import { ERASED_USERNAME, PROFILE_FLAGS } from './personal-fields.js';

/** A jsonb object of profile changes with only the keys that are not personal (the flags). */
const FLAGS_OF = (column: string, param: string): string =>
  `(SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM jsonb_each(coalesce(${column}, '{}'::jsonb)) AS f(k, v)
    WHERE k = ANY(${param}::text[]))`;

/** The person's last activity the retention rule counts from: a movement of money, a session, or the sign-up. */
export const lastActivity = async (pool: pg.Pool, userId: number): Promise<Date | null> => {
  const { rows } = await pool.query<{ last: Date | null }>(
    `SELECT GREATEST(
       (SELECT max(created_at) FROM transactions WHERE user_id = $1),
       (SELECT max(GREATEST(created_at, refreshed_at)) FROM sessions WHERE user_id = $1),
       (SELECT created_at FROM users WHERE id = $1)) AS last`,
    [userId],
  );
  return rows[0]?.last ?? null;
};

export const erasedAt = async (pool: pg.Pool, userId: number): Promise<Date | undefined> =>
  (await pool.query<{ erased_at: Date }>('SELECT erased_at FROM person_erasures WHERE user_id = $1', [userId])).rows[0]?.erased_at;

export type ErasureRecord = Readonly<{
  userId: number;
  erasedAt: Date;
  adminUserId: number;
  forced: boolean;
  lastActivity: Date | null;
  retainedUntil: Date | null;
  legacyPlaintextEvents: number;
}>;

/** The shredding itself: the key goes, the tombstone stays (no key is ever made for the person again). */
export const shredKey = async (client: pg.ClientBase, r: ErasureRecord): Promise<void> => {
  await client.query(
    `INSERT INTO person_erasures (user_id, erased_at, admin_user_id, forced, last_activity, retained_until, legacy_plaintext_events)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_id) DO NOTHING`,
    [r.userId, r.erasedAt, r.adminUserId, r.forced, r.lastActivity, r.retainedUntil, r.legacyPlaintextEvents],
  );
  await client.query('DELETE FROM person_keys WHERE user_id = $1', [r.userId]);
};

/** Admin audit rows of the person's own events keep what the admin did, not the personal values it set. */
const PERSONAL_DETAILS = ['email', 'username', 'country', 'registration', 'subject'];

/**
 * The copies of the person's data in tables the service keeps beside the events: read models (rebuilt from events they
 * would read as erased anyway), identity and session tables, chat. Money tables hold none and are not touched.
 */
export const scrubCopies = async (client: pg.ClientBase, userId: number, state: unknown): Promise<void> => {
  const erased = ERASED_USERNAME;
  const flags = [...PROFILE_FLAGS];
  const statements: [string, unknown[]][] = [
    [
      `UPDATE users SET email = NULL, username = $2, country = NULL, identity_provider_email = NULL, game_platform_id = NULL,
         profile = ${FLAGS_OF('profile', '$3')} WHERE id = $1`,
      [userId, erased, flags],
    ],
    ['UPDATE registration_info SET ip = NULL, user_agent = NULL, country = NULL, referrer = NULL WHERE user_id = $1', [userId]],
    ['UPDATE user_access SET state = $2::jsonb, username = $3 WHERE user_id = $1', [userId, JSON.stringify(state), erased]],
    ['DELETE FROM user_keys WHERE user_id = $1', [userId]],
    ['DELETE FROM sessions WHERE user_id = $1', [userId]],
    [`UPDATE chat_messages SET username = $2, text = $2 WHERE user_id = $1`, [userId, erased]],
    [
      `UPDATE admin_audit SET details = CASE WHEN details ? 'changes'
         THEN jsonb_set(details - $2::text[], '{changes}', ${FLAGS_OF("details->'changes'", '$4')}) ELSE details - $2::text[] END
       WHERE target_user_id = $1 AND event_type = ANY($3::text[])`,
      [userId, PERSONAL_DETAILS, ['UserRegistered', 'UsernameSet', 'ProfileUpdated', 'IdentityLinked'], flags],
    ],
    [`UPDATE analytics_events SET properties = properties - 'country' WHERE user_id = $1`, [userId]],
  ];
  for (const [sql, params] of statements) await client.query(sql, params);
};
