import type pg from 'pg';
import { scopeFilter, type ReportScope } from './reports.scope.js';
import type { Cell, ReportColumn, ReportRow, ReportTable } from './report.table.js';

export const GAMING_GROUPS = ['day', 'game', 'provider', 'currency'] as const;
export type GamingGroup = (typeof GAMING_GROUPS)[number];

const KEY: Record<GamingGroup, { select: string; group: string }> = {
  day: { select: `to_char(day, 'YYYY-MM-DD') AS key, NULL::int AS game_id`, group: 'day' },
  game: { select: 'max(game_name) AS key, game_id', group: 'game_id' },
  provider: { select: 'provider AS key, NULL::int AS game_id', group: 'provider' },
  currency: { select: `'all' AS key, NULL::int AS game_id`, group: '' },
};

/** Kinds of adjustment that turn GGR into NGR: what the casino gave back (or took back) outside the games. */
export const NGR_KINDS = ['TIP', 'DEDUCTION', 'LEADERBOARD_PRIZE', 'AFFILIATE_COMMISSION'] as const;

const t = (v: string): string => `trim_scale(${v})::text`;

/**
 * GGR and NGR: per key and currency, bets, stakes, payouts and refunded stakes, GGR = stakes - payouts - refunds; by day
 * (and in the totals) the deductions of NGR_KINDS and NGR = GGR - deductions. Reads one row per day, game and currency.
 */
export const gamingReport = async (db: Pick<pg.Pool, 'query'>, scope: ReportScope, group: GamingGroup): Promise<ReportTable> => {
  const f = scopeFilter(scope, 1);
  const k = KEY[group];
  const withNgr = group === 'day' || group === 'currency';
  const dKey = group === 'day' ? `to_char(day, 'YYYY-MM-DD')` : `'all'`;
  const { rows } = await db.query<Record<string, string | null>>(
    `WITH g AS (
       SELECT ${k.select}, currency_id, sum(bets) AS bets, sum(stakes) AS stakes, sum(payouts) AS payouts, sum(refunds) AS refunds,
         sum(usd_stakes - usd_payouts - usd_refunds) AS usd_ggr
       FROM finance_gaming_daily WHERE ${f.sql} GROUP BY ${k.group ? `${k.group}, ` : ''}currency_id
     ), d AS (
       SELECT ${dKey} AS key, currency_id, sum(amount) AS total, sum(usd_amount) AS usd,
         sum(amount) FILTER (WHERE kind = 'TIP') AS tips, sum(amount) FILTER (WHERE kind = 'DEDUCTION') AS deductions,
         sum(amount) FILTER (WHERE kind = 'LEADERBOARD_PRIZE') AS prizes,
         sum(amount) FILTER (WHERE kind = 'AFFILIATE_COMMISSION') AS affiliate
       FROM finance_adjustments_daily WHERE ${f.sql} AND kind = ANY($${f.values.length + 1}::text[]) AND ${withNgr}
       GROUP BY ${group === 'day' ? 'day, ' : ''}currency_id
     ), j AS (
       SELECT coalesce(g.key, d.key) AS key, g.game_id, coalesce(g.currency_id, d.currency_id) AS currency_id,
         coalesce(g.bets, 0) AS bets, coalesce(g.stakes, 0) AS stakes, coalesce(g.payouts, 0) AS payouts,
         coalesce(g.refunds, 0) AS refunds, coalesce(g.usd_ggr, 0) AS usd_ggr, coalesce(d.total, 0) AS total,
         coalesce(d.usd, 0) AS usd, coalesce(d.tips, 0) AS tips, -coalesce(d.deductions, 0) AS deductions,
         coalesce(d.prizes, 0) AS prizes, coalesce(d.affiliate, 0) AS affiliate
       FROM g FULL JOIN d ON d.key = g.key AND d.currency_id = g.currency_id
     )
     SELECT key, game_id, currency_id, bets::text, ${t('stakes')} AS stakes, ${t('payouts')} AS payouts, ${t('refunds')} AS refunds,
       ${t('stakes - payouts - refunds')} AS ggr, ${t('usd_ggr')} AS usd_ggr, ${t('tips')} AS tips, ${t('deductions')} AS deductions,
       ${t('prizes')} AS prizes, ${t('affiliate')} AS affiliate, ${t('stakes - payouts - refunds - total')} AS ngr,
       ${t('usd_ggr - usd')} AS usd_ngr
     FROM j ORDER BY key, currency_id`,
    [...f.values, [...NGR_KINDS]],
  );
  return { columns: gamingColumns(group, withNgr), rows: rows.map((r) => gamingRow(r, group, withNgr)) };
};

const gamingColumns = (group: GamingGroup, withNgr: boolean): ReportColumn[] => [
  ...(group === 'currency' ? [] : [{ name: group, text: true as const }]),
  { name: 'currencyId', text: true },
  ...['bets', 'stakes', 'payouts', 'refunds', 'ggr', 'usdGgr'].map((name) => ({ name })),
  ...(withNgr
    ? ['adminTips', 'adminDeductions', 'leaderboardPrizes', 'rakeback', 'affiliateCommissions', 'ngr', 'usdNgr'].map((name) => ({ name }))
    : []),
];

const gamingRow = (r: Record<string, string | null>, group: GamingGroup, withNgr: boolean): ReportRow => {
  const base: Record<string, Cell> = {
    ...(group === 'currency' ? {} : { [group]: group === 'game' ? `${r.key} (#${r.game_id})` : r.key }),
    currencyId: r.currency_id,
    bets: Number(r.bets),
    stakes: r.stakes,
    payouts: r.payouts,
    refunds: r.refunds,
    ggr: r.ggr,
    usdGgr: r.usd_ggr,
  };
  if (!withNgr) return base;
  return {
    ...base,
    adminTips: r.tips,
    adminDeductions: r.deductions,
    leaderboardPrizes: r.prizes,
    // No rakeback is paid through the ledger: it accrues (GET /rakebacks) but no movement pays it out.
    rakeback: '0',
    affiliateCommissions: r.affiliate,
    ngr: r.ngr,
    usdNgr: r.usd_ngr,
  };
};
