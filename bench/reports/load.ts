import type pg from 'pg';

const GAMES = `(VALUES (0, 1, 'Dice', 'House'), (1, 2, 'Crash', 'House'), (2, 3, 'Mines', 'House'), (3, 4, 'Plinko', 'House'),
  (4, 5, 'Sweet Bonanza', 'Pragmatic Play'), (5, 6, 'Gates of Olympus', 'Pragmatic Play'), (6, 7, 'Book of Dead', 'Play''n GO'),
  (7, 8, 'Reactoonz', 'Play''n GO'), (8, 9, 'Lightning Roulette', 'Evolution'), (9, 10, 'Crazy Time', 'Evolution'),
  (10, 11, 'Blackjack', 'Evolution'), (11, 12, 'Dice Deluxe', 'Hacksaw Gaming')) AS games(k, game_id, name, provider)`;

const timed = async (pool: pg.Pool, sql: string): Promise<number> => {
  const t0 = performance.now();
  await pool.query(sql);
  return Math.round(performance.now() - t0);
};

/** The last full calendar month (UTC): inside the 90 days loaded. */
export const lastFullMonth = (): string => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
};

/**
 * `n` bets over the last 90 days straight into the bets table, settled at their placement instant (so a bet's stake
 * and payout fall on one business day for both sides of the comparison). The list indexes are dropped first (the
 * reports never read them; they would only slow the load) and one on the business time is built for the baseline.
 */
export const loadBets = async (pool: pg.Pool, n: number): Promise<Record<string, number>> => {
  const { rows } = await pool.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'bets'`,
  );
  await pool.query('ALTER TABLE bets DROP CONSTRAINT IF EXISTS bets_pkey');
  for (const r of rows) await pool.query(`DROP INDEX IF EXISTS "${r.indexname}"`);
  const bets = await timed(
    pool,
    `INSERT INTO bets (id, user_id, round_id, game_id, game_name, game_slug, game_type, game_provider, currency_id, amount, usd_amount,
       payout, usd_payout, multiplier, status, transaction_id, created_at, updated_at, settled_at, effective_at)
     SELECT 'b' || s.g, 100000 + s.g % 20000, 'r' || s.g, games.game_id, games.name, 'slug', 'SLOTS', games.provider, s.currency_id,
       round(s.usd / s.rate, 8), s.usd, CASE WHEN s.status = 'SETTLED' THEN round(s.usd * s.mult / s.rate, 8) ELSE 0 END,
       CASE WHEN s.status = 'SETTLED' THEN round(s.usd * s.mult, 8) ELSE 0 END, CASE WHEN s.status = 'SETTLED' THEN s.mult END,
       s.status, 'bet_' || s.g, s.at, s.at, CASE WHEN s.status = 'SETTLED' THEN s.at END, s.at
     FROM (
       SELECT g, (g * 31) % 12 AS k, (ARRAY['USDT', 'USDT', 'USDT', 'BTC', 'ETH'])[1 + g % 5] AS currency_id,
         (ARRAY[1, 1, 1, 60000, 3000])[1 + g % 5]::numeric AS rate, round((0.1 * exp(random() * 8))::numeric, 2) AS usd,
         CASE WHEN g % 100 < 95 THEN 'SETTLED' WHEN g % 100 < 97 THEN 'CREATED' WHEN g % 100 < 99 THEN 'ROLLBACK' ELSE 'ERROR' END AS status,
         now() - interval '90 days' + (g::float8 / ${n}) * interval '90 days' AS at,
         CASE WHEN random() < 0.52 THEN 0 ELSE round((0.5 / (1.0001 - random()))::numeric, 2) END AS mult
       FROM generate_series(1, ${n}) g
     ) s JOIN ${GAMES} ON games.k = s.k`,
  );
  const index = await timed(pool, 'CREATE INDEX bets_bench_effective ON bets (effective_at)');
  const analyze = await timed(pool, 'VACUUM ANALYZE bets');
  return { bets, index, analyze };
};

/** The finance read model's daily gaming rows for those bets: what its projection keeps as they arrive (UTC months). */
export const buildDaily = (pool: pg.Pool): Promise<number> =>
  timed(
    pool,
    `INSERT INTO finance_gaming_daily
     SELECT to_char(effective_at AT TIME ZONE 'UTC', 'YYYY-MM'), (effective_at AT TIME ZONE 'UTC')::date, game_id, currency_id,
       max(game_name), max(game_provider), count(*), sum(amount), sum(payout),
       coalesce(sum(amount) FILTER (WHERE status IN ('ROLLBACK', 'ERROR')), 0), sum(usd_amount), sum(usd_payout),
       coalesce(sum(usd_amount) FILTER (WHERE status IN ('ROLLBACK', 'ERROR')), 0)
     FROM bets GROUP BY 1, 2, 3, 4;
     ANALYZE finance_gaming_daily`,
  );

/** The baseline: the month's GGR per currency computed by one aggregate SQL over the bets table. */
export const baselineGgr = async (pool: pg.Pool, month: string): Promise<Record<string, string>> => {
  const { rows } = await pool.query<{ currency_id: string; ggr: string }>(
    `SELECT currency_id, trim_scale(sum(amount) - sum(payout)
       - coalesce(sum(amount) FILTER (WHERE status IN ('ROLLBACK', 'ERROR')), 0))::text AS ggr
     FROM bets WHERE effective_at >= ($1 || '-01')::timestamp AT TIME ZONE 'UTC'
       AND effective_at < (($1 || '-01')::date + interval '1 month')::timestamp AT TIME ZONE 'UTC'
     GROUP BY currency_id ORDER BY currency_id`,
    [month],
  );
  return Object.fromEntries(rows.map((r) => [r.currency_id, r.ggr]));
};
