import type pg from 'pg';
import { isCurrencyId, scaleOf } from '../../domain/money/currency.js';
import { formatDecimal, type Minor } from '../../domain/money/money.js';
import type { KindTotal, ReconciledItem } from './reconcile.js';

/** Items written per INSERT (one statement of parallel arrays each: a few round trips for a 100,000-line statement). */
const CHUNK = 25_000;

const decimal = (currency: string, minor: Minor): string => formatDecimal(minor, isCurrencyId(currency) ? scaleOf(currency) : 18);

export type RunRecord = Readonly<{
  id: string;
  providerId: string;
  from: string;
  to: string;
  fileName: string | null;
  sha256: string;
  statement: string;
  lines: number;
  tolerances: readonly Readonly<{ currencyId: string; tolerance: string }>[];
  totals: readonly KindTotal[];
  uploadedBy: number;
  uploadedAt: string;
}>;

/** Totals as stored and answered: exact decimal strings in each currency. */
export const totalsView = (totals: readonly KindTotal[]) =>
  totals.map((t) => ({
    currencyId: t.currency,
    direction: t.direction,
    kind: t.kind,
    items: t.items,
    statementAmount: decimal(t.currency, t.statement),
    ledgerAmount: decimal(t.currency, t.ledger),
  }));

/** The run and all its items, in the caller's transaction; a statement already reconciled fails on its hash (23505). */
export const insertRun = async (db: Pick<pg.ClientBase, 'query'>, run: RunRecord, items: readonly ReconciledItem[]): Promise<void> => {
  const breaks = items.filter((i) => i.kind !== 'matched').length;
  await db.query(
    `INSERT INTO reconciliation_runs (id, provider_id, range_from, range_to, file_name, sha256, statement, lines, tolerances, totals,
       breaks, uploaded_by, uploaded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      run.id,
      run.providerId,
      run.from,
      run.to,
      run.fileName,
      run.sha256,
      run.statement,
      run.lines,
      JSON.stringify(run.tolerances),
      JSON.stringify(totalsView(run.totals)),
      breaks,
      run.uploadedBy,
      run.uploadedAt,
    ],
  );
  for (let start = 0; start < items.length; start += CHUNK) {
    const chunk = items.slice(start, start + CHUNK);
    const col = <T>(f: (item: ReconciledItem) => T): T[] => chunk.map(f);
    const ledgerCurrency = (i: ReconciledItem): string | null => i.ledger[0]?.currency ?? null;
    await db.query(
      `INSERT INTO reconciliation_items (run_id, item_no, kind, direction, matched_by, line, reference, external_id, tx_hash,
         statement_currency, statement_amount, statement_status, occurred_at, ledger_ids, ledger_currency, ledger_amount, ledger_status,
         effective_at, difference, detail)
       SELECT $1, u.* FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[],
         $10::text[], $11::numeric[], $12::text[], $13::timestamptz[], $14::jsonb[], $15::text[], $16::numeric[], $17::text[],
         $18::timestamptz[], $19::numeric[], $20::text[]) AS u`,
      [
        run.id,
        chunk.map((_, k) => start + k + 1),
        col((i) => i.kind),
        col((i) => i.direction),
        col((i) => i.matchedBy),
        col((i) => i.line?.line ?? null),
        col((i) => i.line?.reference ?? null),
        col((i) => i.line?.externalId ?? null),
        col((i) => i.line?.txHash ?? i.ledger[0]?.txHash ?? null),
        col((i) => i.line?.currency ?? null),
        col((i) => (i.line ? decimal(i.line.currency, i.line.amount) : null)),
        col((i) => i.line?.status ?? null),
        col((i) => i.line?.occurredAt ?? null),
        col((i) => (i.ledger.length > 0 ? JSON.stringify(i.ledger.map((l) => l.id)) : null)),
        col(ledgerCurrency),
        col((i) =>
          i.ledger.length > 0
            ? decimal(
                ledgerCurrency(i)!,
                i.ledger.reduce((s, l) => s + l.amount, 0n),
              )
            : null,
        ),
        col((i) => (i.ledger.length > 0 ? [...new Set(i.ledger.map((l) => l.status))].join(', ') : null)),
        col((i) => (i.ledger.length > 0 ? i.ledger.map((l) => l.effectiveAt).sort()[0]! : null)),
        col((i) => (i.difference !== null && i.line ? decimal(i.line.currency, i.difference) : null)),
        col((i) => i.detail),
      ],
    );
  }
};

/** The run a statement with this digest made, if any. */
export const runOfDigest = async (db: Pick<pg.ClientBase, 'query'>, sha256: string): Promise<string | undefined> =>
  (await db.query<{ id: string }>('SELECT id FROM reconciliation_runs WHERE sha256 = $1', [sha256])).rows[0]?.id;

/** Records a break's resolution once; false when it was resolved already. */
export const insertResolution = async (
  db: Pick<pg.ClientBase, 'query'>,
  r: Readonly<{ runId: string; itemNo: number; note: string; resolvedBy: number; resolvedAt: string }>,
): Promise<boolean> =>
  (
    await db.query(
      `INSERT INTO reconciliation_resolutions (run_id, item_no, note, resolved_by, resolved_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id, item_no) DO NOTHING`,
      [r.runId, r.itemNo, r.note, r.resolvedBy, r.resolvedAt],
    )
  ).rowCount === 1;
