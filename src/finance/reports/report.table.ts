import { createHash } from 'node:crypto';
import { CSV_FORMULA_GUARD, csvField, csvTextField } from '../../audit/export.format.js';

/** A cell as read (a missing one is answered as null). */
export type Cell = string | number | null | undefined;
export type ReportRow = Readonly<Record<string, Cell>>;
/** A column and whether its cells are text (guarded against spreadsheet formulas) or numbers (written as they are). */
export type ReportColumn = Readonly<{ name: string; text?: true }>;

/** A report as a table: the JSON answer's rows and the CSV's lines are the same rows in the same order. */
export type ReportTable = Readonly<{ columns: readonly ReportColumn[]; rows: readonly ReportRow[] }>;

export type ReportManifest = Readonly<{
  rows: number;
  bytes: number;
  sha256: string;
  columns: readonly string[];
  formulaGuard: string;
}>;

/** Every row with exactly the table's columns, in order, missing cells as null: the JSON answer's rows. */
export const jsonRows = (table: ReportTable): Record<string, string | number | null>[] =>
  table.rows.map((row) => Object.fromEntries(table.columns.map((c) => [c.name, row[c.name] ?? null])));

/** RFC 4180, CRLF-terminated, header first; deterministic, so the same report always has the same SHA-256. */
export const reportCsv = (table: ReportTable): string => {
  const lines = [table.columns.map((c) => csvField(c.name)).join(',')];
  for (const row of table.rows) {
    lines.push(
      table.columns
        .map((c) => {
          const v = row[c.name];
          const s = v === null || v === undefined ? null : String(v);
          return c.text ? csvTextField(s) : csvField(s);
        })
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
};

/** What a download of the report's CSV will hold, stated before it is fetched. */
export const reportManifest = (table: ReportTable): ReportManifest => {
  const csv = reportCsv(table);
  return {
    rows: table.rows.length,
    bytes: Buffer.byteLength(csv),
    sha256: createHash('sha256').update(csv).digest('hex'),
    columns: table.columns.map((c) => c.name),
    formulaGuard: CSV_FORMULA_GUARD,
  };
};

/** The JSON answer of a report: its scope (business time), source, columns, rows, totals and the CSV's manifest. */
export const reportJson = (r: {
  report: string;
  scope: object;
  source: string;
  table: ReportTable;
  totals?: readonly ReportRow[] | undefined;
}) => ({
  report: r.report,
  scope: { ...r.scope, axis: 'business time' as const },
  source: r.source,
  columns: r.table.columns.map((c) => c.name),
  rows: jsonRows(r.table),
  ...(r.totals ? { totals: r.totals } : {}),
  csv: reportManifest(r.table),
});
