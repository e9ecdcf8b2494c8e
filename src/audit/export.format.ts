import type { ExportColumn, ExportFormat } from './export.columns.js';

export type RawRow = (string | null)[];

export type RowFormatter = Readonly<{
  format: ExportFormat;
  contentType: string;
  extension: string;
  header: string;
  /** Line terminator: CRLF for CSV (RFC 4180), LF for NDJSON. */
  newline: string;
  line(row: RawRow): string;
}>;

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const JSON_ESCAPES = /["\\\u0000-\u001f]/;

/** RFC 4180: a field holding a comma, a quote, CR or LF is quoted with its quotes doubled. */
export const csvField = (value: string | null): string => {
  if (value === null) return '';
  if (value === '') return '""';
  return NEEDS_QUOTES.test(value) ? `"${value.replace(QUOTE, '""')}"` : value;
};

/** What a spreadsheet would read as the start of a formula (OWASP CSV injection): = + - @ TAB CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** The manifest's and the API documentation's statement of the rule below. */
export const CSV_FORMULA_GUARD =
  "OWASP CSV injection: a text cell starting with =, +, -, @, TAB or CR is written with a leading ' and quoted; " +
  'numbers, decimals and times are never altered';

/**
 * A text cell as a spreadsheet may safely open it: a leading `'` makes a would-be formula plain text (OWASP), and the
 * cell is quoted. Only text columns pass here: decimals (a negative amount starts with `-`) stay numbers.
 */
export const csvTextField = (value: string | null): string =>
  value !== null && FORMULA_START.test(value) ? `"'${value.replace(QUOTE, '""')}"` : csvField(value);

const textColumns = (columns: readonly ExportColumn[]): number[] => columns.flatMap((col, i) => (col.type === 'text' ? [i] : []));

const csv = (columns: readonly ExportColumn[]): RowFormatter => {
  // Digits, decimals and timestamps can hold none of [",\r\n] and start no formula: only text columns are inspected.
  const text = textColumns(columns);
  return {
    format: 'csv',
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    header: `${columns.map((col) => csvField(col.name)).join(',')}\r\n`,
    newline: '\r\n',
    line(row) {
      for (const i of text) {
        const v = row[i];
        if (v === '' || (v && (NEEDS_QUOTES.test(v) || FORMULA_START.test(v)))) row[i] = csvTextField(v);
      }
      return row.join(','); // join writes null as the empty field
    },
  };
};

const ndjson = (columns: readonly ExportColumn[]): RowFormatter => {
  const n = columns.length;
  const parts = new Array<string>(2 * n + 1);
  columns.forEach((col, i) => {
    parts[2 * i] = `${i === 0 ? '{' : ','}${JSON.stringify(col.name)}:`;
  });
  parts[2 * n] = '}';
  const types = columns.map((col) => col.type);
  return {
    format: 'ndjson',
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'ndjson',
    header: '',
    newline: '\n',
    line(row) {
      for (let i = 0; i < n; i += 1) {
        const v = row[i] ?? null;
        // int: already a JSON integer literal (digits, maybe a sign); decimals, ISO timestamps and most text need no escaping.
        parts[2 * i + 1] =
          v === null ? 'null' : types[i] === 'int' ? v : types[i] !== 'text' || !JSON_ESCAPES.test(v) ? `"${v}"` : JSON.stringify(v);
      }
      return parts.join('');
    },
  };
};

export const formatterFor = (format: ExportFormat, columns: readonly ExportColumn[]): RowFormatter =>
  format === 'csv' ? csv(columns) : ndjson(columns);
