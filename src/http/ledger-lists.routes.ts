import { Router, type Request, type Response } from 'express';
import { guardedRoutes } from './access.js';
import { consistentRead } from './ledger-position.js';
import { dayRangePlan, SCAN, type TotalPlan } from './list-totals.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { HttpError, zodToHttp } from './errors.js';
import { compileWhere, escapeLike, nestedQuery, SqlParams, type FieldMap } from './filters.js';
import {
  AdminTipsQuery,
  BetsBody,
  BetsQuery,
  DepositsQuery,
  FullStatsParams,
  RakebackBody,
  StatsTransactionsQuery,
  TransactionsBody,
  WithdrawalsQuery,
} from './ledger-lists.schemas.js';
import { dec, direction, iso, listPage, shortUser, shortUserColumns } from './ledger-lists.views.js';
import { parseBody, parseParams, parseQuery, type z } from './validate.js';
import { fullStats } from './user-full-stats.js';
import { statsTransactions } from './stats-transactions.js';
import { AdminStats, Paginated, TransactionBucket, UntypedList, WithdrawalRecord } from './openapi.schemas.js';

const PaginatedBets = Paginated('PaginatedBets');

/** The read models each list reads (a consistent read waits for these only). */
const TIPS_READS = ['admin-tips', 'users'];
const WITHDRAWALS_READS = ['withdrawals', 'users'];
const DEPOSITS_READS = ['deposits', 'users'];
const BETS_READS = ['bets', 'users'];
const TRANSACTIONS_READS = ['transactions'];
const STATS_READS = ['deposits', 'withdrawals'];
const RAKEBACK_READS = ['rakeback'];

type AnyRow = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Query strings with nested keys (`where[status]=SETTLED`) or a JSON `where`, validated like parseQuery. */
const parseNestedQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => {
  const result = schema.safeParse(nestedQuery(req.originalUrl));
  if (!result.success) throw zodToHttp(result.error, 'query');
  return result.data;
};

const BET_FIELDS: FieldMap = {
  gameId: { kind: 'equals', column: 'b.game_id', cast: 'integer' },
  status: { kind: 'equals', column: 'b.status', cast: 'text' },
  userId: { kind: 'equals', column: 'b.user_id', cast: 'bigint' },
  currencyId: { kind: 'equals', column: 'b.currency_id', cast: 'text' },
  multiplier: { kind: 'number', column: 'b.multiplier' },
  usdAmount: { kind: 'decimal', column: 'b.usd_amount' },
  usdPayout: { kind: 'decimal', column: 'b.usd_payout' },
  amount: { kind: 'decimal', column: 'b.amount' },
  payout: { kind: 'decimal', column: 'b.payout' },
  createdAt: { kind: 'date', column: 'b.created_at' },
  // Bets carry the provider's name only: provider.slug filters it; provider ids are refused by the schema.
  gameIdentity: {
    kind: 'nested',
    fields: {
      slug: { kind: 'string', column: 'b.game_slug' },
      provider: { kind: 'nested', fields: { slug: { kind: 'string', column: 'b.game_provider' } } },
    },
  },
};
const BET_SORT = {
  CREATED_AT: 'b.created_at',
  MULTIPLIER: 'b.multiplier',
  USD_AMOUNT: 'b.usd_amount',
  USD_PAYOUT: 'b.usd_payout',
} as const;

const TRANSACTION_FIELDS: FieldMap = {
  userId: { kind: 'equals', column: 't.user_id', cast: 'bigint' },
  currencyId: { kind: 'equals', column: 't.currency_id', cast: 'text' },
  type: { kind: 'equals', column: 't.type', cast: 'text' },
  createdAt: { kind: 'date', column: 't.created_at' },
};

/** Which fields of an object are set (a filter matches a counter only when nothing else narrows it). */
const setKeys = (o: object): string[] =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
const only = (o: object, allowed: readonly string[]): boolean => setKeys(o).every((k) => allowed.includes(k));

/** Lists kept counts by status and user (deposits, withdrawals). */
const statusTotal = (counts: string, q: { status?: string | undefined; userId?: number | undefined }): TotalPlan => {
  const key = [q.userId !== undefined ? `u:${q.userId}` : '', q.status ? `s:${q.status}` : ''].filter(Boolean).join('|');
  return { kind: 'counter', counts, keys: [key] };
};

const tipsTotal = (q: z.output<typeof AdminTipsQuery>): TotalPlan => {
  if (q.search || q.senderOrRecipientUserId !== undefined || (q.senderUserId !== undefined && q.recipientUserId !== undefined)) return SCAN;
  const key = q.recipientUserId !== undefined ? `r:${q.recipientUserId}` : q.senderUserId !== undefined ? `x:${q.senderUserId}` : '';
  return { kind: 'counter', counts: 'admin_tips_counts', keys: [key] };
};

/** Bets always filter a status (default SETTLED): by it alone, with a user, or with a createdAt range. */
const betsTotal = (w: z.output<typeof BetsBody>['where']): TotalPlan => {
  if (only(w, ['status'])) return { kind: 'counter', counts: 'bets_counts', keys: [`s:${w.status}`] };
  if (only(w, ['status', 'userId'])) return { kind: 'counter', counts: 'bets_counts', keys: [`u:${w.userId}|s:${w.status}`] };
  if (only(w, ['status', 'createdAt']) && w.createdAt)
    return dayRangePlan('bets_counts', `s:${w.status}|d:`, 'b.created_at', w.createdAt) ?? SCAN;
  return SCAN;
};

const transactionsTotal = (w: z.output<typeof TransactionsBody>['where']): TotalPlan => {
  if (only(w, [])) return { kind: 'counter', counts: 'transactions_counts', keys: [''] };
  if (only(w, ['userId'])) return { kind: 'counter', counts: 'transactions_counts', keys: [`u:${w.userId}`] };
  if (only(w, ['createdAt']) && w.createdAt) return dayRangePlan('transactions_counts', 'd:', 't.created_at', w.createdAt) ?? SCAN;
  return SCAN;
};

const betRecord = (r: AnyRow) => ({
  id: r.id,
  userId: Number(r.user_id),
  roundId: r.round_id,
  gameId: r.game_id,
  currencyId: r.currency_id,
  amount: r.amount,
  payout: r.payout,
  usdAmount: r.usd_amount,
  usdPayout: r.usd_payout,
  status: r.status,
  multiplier: r.multiplier === null ? null : Number(r.multiplier),
  errorDetails: r.error_details,
  // No GGR commission is computed on this platform yet.
  commissionGgrUsdAmount: '0',
  commissionGgrPercent: '0',
  gameIdentity: { name: r.game_name, slug: r.game_slug, type: r.game_type, provider: { name: r.game_provider }, images: null },
  user: shortUser(r, 'u'),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  settledAt: iso(r.settled_at),
});

/** Back-office read side of the ledger: admin tips, withdrawals, deposits, bets, accounting log and USD stats. */
export const ledgerListsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool } = deps;

  route(
    'get',
    '/admin-tips',
    { kind: 'perm', permission: 'admin-tips.view' },
    {
      readModels: TIPS_READS,
      summary: 'List admin tips',
      request: { query: AdminTipsQuery },
      responses: { 200: { description: 'Paginated admin tips', schema: Paginated('PaginatedAdminTips') } },
    },
    consistentRead(deps.reads, TIPS_READS),
    async (req, res) => {
      const q = parseQuery(AdminTipsQuery, req);
      const p = new SqlParams();
      const conditions: string[] = [];
      if (q.senderUserId !== undefined) conditions.push(`t.sender_user_id = ${p.add(q.senderUserId)}`);
      if (q.recipientUserId !== undefined) conditions.push(`t.recipient_user_id = ${p.add(q.recipientUserId)}`);
      if (q.senderOrRecipientUserId !== undefined) {
        const id = p.add(q.senderOrRecipientUserId);
        conditions.push(`(t.sender_user_id = ${id} OR t.recipient_user_id = ${id})`);
      }
      if (q.search) {
        const like = p.add(`%${escapeLike(q.search)}%`);
        conditions.push(
          `(t.notes ILIKE ${like} ESCAPE '\\' OR s.username ILIKE ${like} ESCAPE '\\' OR r.username ILIKE ${like} ESCAPE '\\')`,
        );
      }
      const sort = { AMOUNT: 't.amount', CREATED_AT: 't.created_at', ID: 't.id' }[q.sortBy];
      const dir = direction(q.sortOrder);
      res.json(
        await listPage<AnyRow, unknown>(
          pool,
          {
            select: `t.id, t.type, t.currency_id, ${dec('t.amount')} AS amount, t.tag, t.notes, t.created_at,
        t.sender_user_id, s.username AS sender_username, t.recipient_user_id, r.username AS recipient_username`,
            from: 'admin_tips t LEFT JOIN users s ON s.id = t.sender_user_id LEFT JOIN users r ON r.id = t.recipient_user_id',
            conditions,
            orderBy: `${sort} ${dir}, t.id ${dir}`,
          },
          p,
          q,
          (r) => ({
            id: r.id,
            type: r.type,
            currencyId: r.currency_id,
            amount: r.amount,
            tag: r.tag,
            notes: r.notes,
            createdAt: iso(r.created_at),
            sender: { id: Number(r.sender_user_id), username: r.sender_username ?? '' },
            recipient: { id: Number(r.recipient_user_id), username: r.recipient_username ?? '' },
          }),
          tipsTotal(q),
          res,
        ),
      );
    },
  );

  route(
    'get',
    '/withdraw',
    { kind: 'perm', permission: 'withdrawals.view' },
    {
      readModels: WITHDRAWALS_READS,
      summary: 'List withdrawals',
      request: { query: WithdrawalsQuery },
      responses: { 200: { description: 'Paginated withdrawals', schema: Paginated('PaginatedWithdrawals', WithdrawalRecord) } },
    },
    consistentRead(deps.reads, WITHDRAWALS_READS),
    async (req, res) => {
      const q = parseQuery(WithdrawalsQuery, req);
      const p = new SqlParams();
      const conditions: string[] = [];
      if (q.status) conditions.push(`w.status = ${p.add(q.status)}`);
      if (q.userId !== undefined) conditions.push(`w.user_id = ${p.add(q.userId)}`);
      if (q.username) conditions.push(`lower(u.username) = lower(${p.add(q.username)})`);
      const dir = direction(q.sortOrder);
      res.json(
        await listPage<AnyRow, unknown>(
          pool,
          {
            select: `w.*, ${dec('w.amount')} AS amount, ${dec('w.usd_amount')} AS usd_amount, ${shortUserColumns('u', 'u')}, ${shortUserColumns('c', 'c')}`,
            from: 'withdrawals w LEFT JOIN users u ON u.id = w.user_id LEFT JOIN users c ON c.id = w.confirmed_by_user_id',
            conditions,
            orderBy: `${q.sortBy === 'USD_AMOUNT' ? 'w.usd_amount' : 'w.created_at'} ${dir}, w.id ${dir}`,
          },
          p,
          q,
          (r) => ({
            id: r.id,
            userId: Number(r.user_id),
            amount: r.amount,
            currencyId: r.currency_id,
            status: r.status,
            usdAmount: r.usd_amount,
            networkId: r.network_id,
            providerId: r.provider_id,
            recipientAddress: r.recipient_address,
            recipientMemo: r.recipient_memo,
            confirmedAt: iso(r.confirmed_at),
            confirmations: r.confirmations,
            rejectReason: r.reject_reason,
            transactionId: r.transaction_id,
            txHash: r.tx_hash,
            failedReason: r.failed_reason,
            createdAt: iso(r.created_at),
            updatedAt: iso(r.updated_at),
            user: shortUser(r, 'u'),
            confirmedByUser: shortUser(r, 'c'),
            confirmedByUserId: r.confirmed_by_user_id === null ? null : Number(r.confirmed_by_user_id),
          }),
          q.username ? SCAN : statusTotal('withdrawals_counts', q),
          res,
        ),
      );
    },
  );

  route(
    'get',
    '/deposit',
    { kind: 'perm', permission: 'deposits.view' },
    {
      readModels: DEPOSITS_READS,
      summary: 'List deposits',
      request: { query: DepositsQuery },
      responses: { 200: { description: 'Paginated deposits', schema: Paginated('PaginatedDeposits') } },
    },
    consistentRead(deps.reads, DEPOSITS_READS),
    async (req, res) => {
      const q = parseQuery(DepositsQuery, req);
      const p = new SqlParams();
      const conditions: string[] = [];
      if (q.status) conditions.push(`d.status = ${p.add(q.status)}`);
      if (q.userId !== undefined) conditions.push(`d.user_id = ${p.add(q.userId)}`);
      const sort = {
        CREATED_AT: 'd.created_at',
        USD_AMOUNT: 'd.usd_amount',
        COMPLETED_AT: 'd.completed_at',
        CONFIRMED_AT: 'd.confirmed_at',
      }[q.sortBy];
      const dir = direction(q.sortOrder);
      res.json(
        await listPage<AnyRow, unknown>(
          pool,
          {
            select: `d.*, ${dec('d.amount')} AS amount, ${dec('d.usd_amount')} AS usd_amount, ${shortUserColumns('u', 'u')}`,
            from: 'deposits d LEFT JOIN users u ON u.id = d.user_id',
            // Deposits not yet confirmed or completed have no such time: they come last in both directions.
            conditions,
            orderBy: `${sort} ${dir} NULLS LAST, d.id ${dir}`,
          },
          p,
          q,
          (r) => ({
            id: r.id,
            userId: Number(r.user_id),
            amount: r.amount,
            currencyId: r.currency_id,
            status: r.status,
            usdAmount: r.usd_amount,
            networkId: r.network_id,
            providerId: r.provider_id,
            externalId: r.external_id,
            txHash: r.tx_hash,
            payAddress: r.pay_address,
            payMemo: r.pay_memo,
            transactionId: r.transaction_id,
            affiliateAmount: r.affiliate_amount,
            depositBonus: r.deposit_bonus,
            affiliateCodeId: r.affiliate_code_id,
            createdAt: iso(r.created_at),
            updatedAt: iso(r.updated_at),
            confirmedAt: iso(r.confirmed_at),
            completedAt: iso(r.completed_at),
            user: shortUser(r, 'u'),
          }),
          statusTotal('deposits_counts', q),
          res,
        ),
      );
    },
  );

  const listBets = (q: z.output<typeof BetsBody>, res: Response) => {
    const p = new SqlParams();
    const dir = direction(q.sortOrder);
    return listPage<AnyRow, unknown>(
      pool,
      {
        select: `b.*, ${['amount', 'usd_amount', 'payout', 'usd_payout', 'multiplier'].map((c) => `${dec(`b.${c}`)} AS ${c}`).join(', ')}, ${shortUserColumns('u', 'u')}`,
        from: 'bets b LEFT JOIN users u ON u.id = b.user_id',
        conditions: compileWhere(BET_FIELDS, q.where, p),
        orderBy: `${BET_SORT[q.sortBy]} ${dir} NULLS LAST, b.id ${dir}`,
      },
      p,
      q,
      betRecord,
      betsTotal(q.where),
      res,
    );
  };
  route(
    'get',
    '/bets',
    { kind: 'perm', permission: 'user.bets.view' },
    {
      readModels: BETS_READS,
      summary: 'List bets',
      request: { query: BetsQuery },
      responses: { 200: { description: 'Paginated bets', schema: PaginatedBets } },
    },
    consistentRead(deps.reads, BETS_READS),
    async (req, res) => {
      res.json(await listBets(parseNestedQuery(BetsQuery, req), res));
    },
  );
  route(
    'post',
    '/bets',
    { kind: 'perm', permission: 'user.bets.view' },
    {
      readModels: BETS_READS,
      summary: 'List bets (filter in the body)',
      request: { body: BetsBody },
      responses: { 200: { description: 'Paginated bets', schema: PaginatedBets }, 201: { description: 'Declared by the spec; not sent' } },
    },
    consistentRead(deps.reads, BETS_READS),
    async (req, res) => {
      res.status(200).json(await listBets(parseBody(BetsBody, req), res));
    },
  );

  route(
    'post',
    '/accounting/transactions',
    { kind: 'superadmin' },
    {
      readModels: TRANSACTIONS_READS,
      summary: 'List accounting transactions',
      request: { body: TransactionsBody },
      responses: {
        200: { description: 'Paginated transactions', schema: Paginated('PaginatedTransactions') },
        201: { description: 'Declared by the spec; not sent' },
      },
    },
    consistentRead(deps.reads, TRANSACTIONS_READS),
    async (req, res) => {
      const q = parseBody(TransactionsBody, req);
      const p = new SqlParams();
      const dir = direction(q.sortOrder);
      res.status(200).json(
        await listPage<AnyRow, unknown>(
          pool,
          {
            select: `t.id, t.user_id, t.currency_id, t.type, t.original_id, t.admin_user_id, t.created_at, t.updated_at,
        ${dec('t.amount')} AS amount, ${dec('t.before_balance')} AS before_balance, ${dec('t.after_balance')} AS after_balance`,
            from: 'transactions t',
            conditions: compileWhere(TRANSACTION_FIELDS, q.where, p),
            orderBy: `t.created_at ${dir}, t.position_commit ${dir}, t.position_prepare ${dir}`,
          },
          p,
          q,
          (r) => ({
            id: r.id,
            userId: Number(r.user_id),
            currencyId: r.currency_id,
            type: r.type,
            amount: r.amount,
            beforeBalance: r.before_balance,
            afterBalance: r.after_balance,
            originalId: r.original_id,
            adminUserId: r.admin_user_id === null ? null : Number(r.admin_user_id),
            createdAt: iso(r.created_at),
            updatedAt: iso(r.updated_at),
          }),
          transactionsTotal(q.where),
          res,
        ),
      );
    },
  );

  route(
    'get',
    '/user/stats/transactions',
    { kind: 'perm', permission: 'transaction.view' },
    {
      readModels: STATS_READS,
      summary: 'Deposit or withdrawal totals per period',
      request: { query: StatsTransactionsQuery },
      responses: {
        200: { description: 'Paginated totals per period', schema: Paginated('PaginatedTransactionBuckets', TransactionBucket) },
      },
    },
    consistentRead(deps.reads, STATS_READS),
    async (req, res) => {
      res.json(await statsTransactions(pool, parseQuery(StatsTransactionsQuery, req)));
    },
  );

  route(
    'get',
    '/user/:id/full/stats',
    { kind: 'superadmin' },
    {
      summary: "A user's admin stats",
      request: { params: FullStatsParams },
      responses: { 200: { description: 'Admin stats', schema: AdminStats } },
    },
    async (req, res) => {
      const { id } = parseParams(FullStatsParams, req);
      const stats = await fullStats(pool, id);
      if (!stats) throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
      res.json(stats);
    },
  );

  route(
    'post',
    '/rakeback/find-many',
    { kind: 'perm', permission: 'rakebacks.view' },
    {
      readModels: RAKEBACK_READS,
      summary: "A user's rakeback records",
      request: { body: RakebackBody },
      responses: { 201: { description: 'Array of rakeback records', schema: UntypedList } },
    },
    consistentRead(deps.reads, RAKEBACK_READS),
    async (req, res) => {
      const { where } = parseBody(RakebackBody, req);
      const pots = [
        'instant_claimable',
        'instant_total_claimed',
        ...['daily', 'weekly', 'monthly'].flatMap((p) => [`${p}_claimable`, `${p}_total_claimed`, `${p}_accumulated`]),
      ];
      const { rows } = await pool.query<AnyRow>(
        `SELECT user_id, currency_id, updated_at, ${pots.map((c) => `${dec(c)} AS ${c}`).join(', ')} FROM rakebacks
       WHERE user_id = $1 AND ($2::text IS NULL OR currency_id = $2) ORDER BY currency_id`,
        [where.userId, where.currencyId ?? null],
      );
      res.status(201).json(
        rows.map((r) => ({
          userId: Number(r.user_id),
          currencyId: r.currency_id,
          updatedAt: iso(r.updated_at),
          instantClaimable: r.instant_claimable,
          instantTotalClaimed: r.instant_total_claimed,
          dailyClaimable: r.daily_claimable,
          dailyTotalClaimed: r.daily_total_claimed,
          dailyAccumulated: r.daily_accumulated,
          weeklyClaimable: r.weekly_claimable,
          weeklyTotalClaimed: r.weekly_total_claimed,
          weeklyAccumulated: r.weekly_accumulated,
          monthlyClaimable: r.monthly_claimable,
          monthlyTotalClaimed: r.monthly_total_claimed,
          monthlyAccumulated: r.monthly_accumulated,
        })),
      );
    },
  );

  return router;
};
