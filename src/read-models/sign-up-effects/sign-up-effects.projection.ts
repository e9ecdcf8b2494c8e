import { insertRows, type Projection, type Row, type Sql } from '../../projections/projection.js';
import { userRecords } from '../user-records.js';

const HANDLES: readonly string[] = ['UserRegistered'];

/**
 * Sign-up side effects, asynchronous and exactly once (rows and checkpoint commit together): an analytics
 * record, the affiliate referral resolved from `referrerCode` against `affiliate_codes`, and a queued
 * welcome-bonus job (paid by its worker; nothing is credited here).
 */
export const signUpEffectsProjection: Projection = {
  name: 'sign-up-effects',
  version: 1,
  handles: HANDLES,
  tables: ['analytics_events', 'affiliate_referrals', 'welcome_bonus_jobs'],
  project(events) {
    const analytics: Row[] = [];
    const referrals: Row[] = [];
    const bonuses: Row[] = [];
    for (const { userId, event, recorded } of userRecords(events, HANDLES)) {
      if (event.type !== 'UserRegistered') continue;
      const d = event.data;
      analytics.push({
        event_id: recorded.id,
        user_id: userId,
        name: 'sign_up',
        properties: { provider: d.provider, country: d.country, marketingOptIn: d.marketingOptIn, referrerCode: d.referrerCode },
        created_at: d.at,
      });
      if (d.referrerCode !== null) referrals.push({ user_id: userId, referrer_code: d.referrerCode, created_at: d.at });
      bonuses.push({ user_id: userId, status: 'QUEUED', created_at: d.at });
    }
    const resolve: Sql[] =
      referrals.length === 0
        ? []
        : [
            {
              text: `INSERT INTO affiliate_referrals (user_id, referrer_code, referrer_user_id, status, created_at)
             SELECT r.user_id, r.referrer_code, c.user_id, CASE WHEN c.user_id IS NULL THEN 'UNRESOLVED' ELSE 'RESOLVED' END, r.created_at
             FROM json_to_recordset($1::json) AS r(user_id bigint, referrer_code text, created_at timestamptz)
             LEFT JOIN affiliate_codes c ON c.code = lower(r.referrer_code)`,
              values: [JSON.stringify(referrals)],
            },
          ];
    return [...insertRows('analytics_events', analytics), ...resolve, ...insertRows('welcome_bonus_jobs', bonuses)];
  },
};
