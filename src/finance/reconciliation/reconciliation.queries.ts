import type pg from 'pg';
import type { ItemKind } from './reconcile.js';

type Db = Pick<pg.ClientBase, 'query'>;

const RUN_COLUMNS = `r.id, r.provider_id, r.range_from, r.range_to, r.file_name, r.sha256, r.lines, r.tolerances, r.totals, r.breaks,
  r.uploaded_by, r.uploaded_at, u.username AS uploaded_by_username,
  (SELECT count(*) FROM reconciliation_resolutions s WHERE s.run_id = r.id)::int AS resolved`;

type RunRow = {
  id: string;
  provider_id: string;
  range_from: Date;
  range_to: Date;
  file_name: string | null;
  sha256: string;
  lines: number;
  tolerances: unknown[];
  totals: unknown[];
  breaks: number;
  resolved: number;
  uploaded_by: string;
  uploaded_by_username: string | null;
  uploaded_at: Date;
};

const runView = (r: RunRow) => ({
  id: r.id,
  providerId: r.provider_id,
  from: r.range_from.toISOString(),
  to: r.range_to.toISOString(),
  fileName: r.file_name,
  sha256: r.sha256,
  lines: r.lines,
  tolerances: r.tolerances,
  totals: r.totals,
  breaks: r.breaks,
  unresolvedBreaks: r.breaks - r.resolved,
  uploadedBy: { id: Number(r.uploaded_by), username: r.uploaded_by_username ?? '' },
  uploadedAt: r.uploaded_at.toISOString(),
});
export type RunView = ReturnType<typeof runView>;

export const runById = async (db: Db, id: string): Promise<RunView | undefined> => {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM reconciliation_runs r LEFT JOIN users u ON u.id = r.uploaded_by WHERE r.id = $1`,
    [id],
  );
  return rows[0] && runView(rows[0]);
};

/** Runs newest first (without their totals: the run's own page has them). */
export const listRuns = async (db: Db, page: Readonly<{ page: number; limit: number; providerId?: string | undefined }>) => {
  const [{ rows }, count] = await Promise.all([
    db.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM reconciliation_runs r LEFT JOIN users u ON u.id = r.uploaded_by
       WHERE ($1::text IS NULL OR r.provider_id = $1) ORDER BY r.uploaded_at DESC, r.id DESC LIMIT $2 OFFSET $3`,
      [page.providerId ?? null, page.limit, (page.page - 1) * page.limit],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM reconciliation_runs WHERE ($1::text IS NULL OR provider_id = $1)', [
      page.providerId ?? null,
    ]),
  ]);
  return {
    total: count.rows[0]!.n,
    runs: rows.map(({ totals: _t, tolerances: _o, ...r }) => runView({ ...r, totals: [], tolerances: [] })),
  };
};

type ItemRow = {
  item_no: number;
  kind: ItemKind;
  direction: string;
  matched_by: string | null;
  line: number | null;
  reference: string | null;
  external_id: string | null;
  tx_hash: string | null;
  statement_currency: string | null;
  statement_amount: string | null;
  statement_status: string | null;
  occurred_at: Date | null;
  ledger_ids: string[] | null;
  ledger_currency: string | null;
  ledger_amount: string | null;
  ledger_status: string | null;
  effective_at: Date | null;
  difference: string | null;
  detail: string | null;
  note: string | null;
  resolved_by: string | null;
  resolved_by_username: string | null;
  resolved_at: Date | null;
};

const itemView = (r: ItemRow) => ({
  itemNo: r.item_no,
  kind: r.kind,
  direction: r.direction,
  matchedBy: r.matched_by,
  statement:
    r.line === null
      ? null
      : {
          line: r.line,
          reference: r.reference,
          externalId: r.external_id,
          txHash: r.tx_hash,
          currencyId: r.statement_currency,
          amount: r.statement_amount,
          status: r.statement_status,
          occurredAt: r.occurred_at?.toISOString() ?? null,
        },
  ledger:
    r.ledger_ids === null
      ? null
      : {
          ids: r.ledger_ids,
          currencyId: r.ledger_currency,
          amount: r.ledger_amount,
          status: r.ledger_status,
          effectiveAt: r.effective_at?.toISOString() ?? null,
          txHash: r.line === null ? r.tx_hash : null,
        },
  difference: r.difference,
  detail: r.detail,
  resolution:
    r.resolved_at === null
      ? null
      : {
          note: r.note ?? '',
          resolvedBy: { id: Number(r.resolved_by), username: r.resolved_by_username ?? '' },
          resolvedAt: r.resolved_at.toISOString(),
        },
});
export type ItemView = ReturnType<typeof itemView>;

const ITEM_SELECT = `SELECT i.item_no, i.kind, i.direction, i.matched_by, i.line, i.reference, i.external_id, i.tx_hash,
    i.statement_currency,
    trim_scale(i.statement_amount)::text AS statement_amount, i.statement_status, i.occurred_at, i.ledger_ids, i.ledger_currency,
    trim_scale(i.ledger_amount)::text AS ledger_amount, i.ledger_status, i.effective_at, trim_scale(i.difference)::text AS difference,
    i.detail, s.note, s.resolved_by, ru.username AS resolved_by_username, s.resolved_at
  FROM reconciliation_items i
  LEFT JOIN reconciliation_resolutions s ON s.run_id = i.run_id AND s.item_no = i.item_no
  LEFT JOIN users ru ON ru.id = s.resolved_by`;

export type ItemFilter = Readonly<{
  kind?: ItemKind | 'breaks' | undefined;
  resolved?: boolean | undefined;
  page: number;
  limit: number;
}>;

/** A page of a run's items in item order, of one kind (or every break), resolved or not. */
export const itemsPage = async (db: Db, runId: string, f: ItemFilter): Promise<{ total: number; items: ItemView[] }> => {
  const where = `i.run_id = $1
    AND ($2::text IS NULL OR ($2 = 'breaks' AND i.kind <> 'matched') OR i.kind = $2)
    AND ($3::boolean IS NULL OR (s.run_id IS NOT NULL) = $3)`;
  const params = [runId, f.kind ?? null, f.resolved ?? null];
  const [{ rows }, count] = await Promise.all([
    db.query<ItemRow>(`${ITEM_SELECT} WHERE ${where} ORDER BY i.item_no LIMIT $4 OFFSET $5`, [...params, f.limit, (f.page - 1) * f.limit]),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM reconciliation_items i
       LEFT JOIN reconciliation_resolutions s ON s.run_id = i.run_id AND s.item_no = i.item_no WHERE ${where}`,
      params,
    ),
  ]);
  return { total: count.rows[0]!.n, items: rows.map(itemView) };
};

export const itemByNo = async (db: Db, runId: string, itemNo: number): Promise<ItemView | undefined> => {
  const { rows } = await db.query<ItemRow>(`${ITEM_SELECT} WHERE i.run_id = $1 AND i.item_no = $2`, [runId, itemNo]);
  return rows[0] && itemView(rows[0]);
};
