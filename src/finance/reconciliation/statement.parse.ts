import { parse, type CsvError } from 'csv-parse/sync';
import { isCurrencyId, scaleOf, type CurrencyId } from '../../domain/money/currency.js';
import { isParseError, parseDecimal, type Minor } from '../../domain/money/money.js';
import {
  STATEMENT_FIELDS,
  type Direction,
  type ProviderMapping,
  type StatementField,
  type StatementStatus,
} from './statement.providers.js';

/** One line of a provider's statement, as the matcher reads it: the amount in minor units of its currency. */
export type StatementLine = Readonly<{
  line: number;
  reference: string;
  direction: Direction;
  externalId: string | null;
  txHash: string | null;
  currency: CurrencyId;
  amount: Minor;
  status: StatementStatus;
  occurredAt: string;
}>;

/** Where a statement is malformed: the line of the file (1 is the header) and the column. */
export type StatementProblem = Readonly<{ line: number; field: string; message: string }>;

export type ParsedStatement = Readonly<{ ok: true; lines: StatementLine[] }> | Readonly<{ ok: false; problems: StatementProblem[] }>;

/** How many problems one refusal names at most (the first ones, in file order). */
export const MAX_PROBLEMS = 20;
const MAX_TEXT = 200;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

type Record_ = Readonly<{ record: string[]; info: Readonly<{ lines: number }> }>;

const headerProblems = (header: readonly string[], mapping: ProviderMapping): StatementProblem[] => {
  const wanted = STATEMENT_FIELDS.map((f) => mapping.columns[f]);
  const problems: StatementProblem[] = [];
  const seen = new Set<string>();
  for (const name of header) {
    if (!wanted.includes(name)) problems.push({ line: 1, field: name, message: `unknown column "${name.slice(0, MAX_TEXT)}"` });
    else if (seen.has(name)) problems.push({ line: 1, field: name, message: `column "${name}" appears twice` });
    seen.add(name);
  }
  const missing = wanted.filter((w) => !seen.has(w));
  if (missing.length === wanted.length) {
    return [{ line: 1, field: 'header', message: `the first line must be the header: ${wanted.join(', ')}` }];
  }
  for (const name of missing) problems.push({ line: 1, field: name, message: `column "${name}" is missing from the header` });
  return problems;
};

const optional = (v: string): string | null => {
  const t = v.trim();
  return t === '' ? null : t;
};
// NUL and lone surrogates: what PostgreSQL text cannot store.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** A word of the mapping (a type or status), never an inherited property such as `constructor`. */
const wordOf = <T>(words: Readonly<Record<string, T>>, text: string): T | undefined => {
  const key = text.trim().toLowerCase();
  return Object.hasOwn(words, key) ? words[key] : undefined;
};

/** A well-formed record read without allocating anything but the line (the common case); undefined: problemsOf says why. */
const quickLine = (
  record: readonly string[],
  index: Readonly<Record<StatementField, number>>,
  line: number,
  mapping: ProviderMapping,
): StatementLine | undefined => {
  for (let k = 0; k < record.length; k += 1) if (record[k]!.length > MAX_TEXT) return undefined;
  const direction = wordOf(mapping.types, record[index.type]!);
  const status = wordOf(mapping.statuses, record[index.status]!);
  const currency = record[index.currency]!.trim();
  const reference = record[index.reference]!.trim();
  if (direction === undefined || status === undefined || !isCurrencyId(currency) || reference === '') return undefined;
  const amount = parseDecimal(record[index.amount]!.trim(), scaleOf(currency));
  if (typeof amount !== 'bigint' || amount < 0n) return undefined;
  const at = record[index.occurredAt]!.trim();
  const ms = ISO_WITH_ZONE.test(at) ? Date.parse(at) : NaN;
  if (Number.isNaN(ms)) return undefined;
  const externalId = optional(record[index.externalId]!);
  const txHash = optional(record[index.txHash]!);
  return { line, reference, direction, externalId, txHash, currency, amount, status, occurredAt: new Date(ms).toISOString() };
};

/** The problems of a record quickLine refused, naming its line and columns. */
const problemsOf = (record: readonly string[], index: Readonly<Record<StatementField, number>>, line: number, mapping: ProviderMapping) => {
  const problems: StatementProblem[] = [];
  const value = (field: StatementField): string => {
    const v = record[index[field]]!;
    if (v.length > MAX_TEXT) problems.push({ line, field: mapping.columns[field], message: `must be at most ${MAX_TEXT} characters` });
    return v;
  };
  const bad = (field: StatementField, message: string) => problems.push({ line, field: mapping.columns[field], message });
  const type = value('type');
  const direction = wordOf(mapping.types, type);
  if (!direction) bad('type', `"${type.slice(0, MAX_TEXT)}" is not one of ${Object.keys(mapping.types).join(', ')}`);
  const statusText = value('status');
  const status = wordOf(mapping.statuses, statusText);
  if (!status) bad('status', `"${statusText.slice(0, MAX_TEXT)}" is not one of ${Object.keys(mapping.statuses).join(', ')}`);
  const currency = value('currency').trim();
  if (!isCurrencyId(currency)) bad('currency', `"${currency.slice(0, MAX_TEXT)}" is not a currency the ledger knows`);
  else {
    const parsed = parseDecimal(value('amount').trim(), scaleOf(currency));
    if (isParseError(parsed)) bad('amount', `${parsed.message.slice(0, MAX_TEXT)} (${currency} has ${scaleOf(currency)} decimals)`);
    else if (parsed < 0n) bad('amount', 'must not be negative');
  }
  const at = value('occurredAt').trim();
  const ms = ISO_WITH_ZONE.test(at) ? Date.parse(at) : NaN;
  if (Number.isNaN(ms)) bad('occurredAt', `"${at.slice(0, MAX_TEXT)}" is not an ISO 8601 time with zone`);
  const reference = value('reference').trim();
  if (reference === '') bad('reference', 'must not be empty');
  value('externalId');
  value('txHash');
  return problems;
};

/** Where each field holding NUL or a lone surrogate is (PostgreSQL text stores neither): looked for only when the file has one. */
const unstorable = (record: readonly string[], names: readonly string[], line: number): StatementProblem[] =>
  record.flatMap((v, k) =>
    UNSTORABLE.test(v) ? [{ line, field: names[k] ?? 'columns', message: 'must not contain NUL characters or lone surrogates' }] : [],
  );

/**
 * Reads a statement (RFC 4180; UTF-8, a byte-order mark allowed; the header row first) by a provider's mapping. Any
 * problem refuses the whole statement: the answer names each problem's line and column, the first MAX_PROBLEMS of them.
 */
export const parseStatement = (text: string, mapping: ProviderMapping): ParsedStatement => {
  let records: Record_[];
  try {
    records = parse(text, { bom: true, info: true, skip_empty_lines: true, relax_column_count: true }) as unknown as Record_[];
  } catch (error) {
    const e = error as CsvError & { lines?: number };
    return { ok: false, problems: [{ line: e.lines ?? 1, field: 'csv', message: e.message.slice(0, MAX_TEXT) }] };
  }
  const [header, ...rows] = records;
  if (!header) return { ok: false, problems: [{ line: 1, field: 'header', message: 'the statement is empty: the header row is missing' }] };
  const names = header.record.map((h) => h.trim());
  const headerIssues = headerProblems(names, mapping);
  if (headerIssues.length > 0) return { ok: false, problems: headerIssues.slice(0, MAX_PROBLEMS) };
  const index = Object.fromEntries(STATEMENT_FIELDS.map((f) => [f, names.indexOf(mapping.columns[f])])) as Record<StatementField, number>;
  const lines: StatementLine[] = [];
  const problems: StatementProblem[] = [];
  const checkStorable = UNSTORABLE.test(text);
  for (const { record, info } of rows) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (record.length !== names.length) {
      problems.push({ line: info.lines, field: 'columns', message: `has ${record.length} columns, the header ${names.length}` });
      continue;
    }
    const badText = checkStorable ? unstorable(record, names, info.lines) : [];
    const read = badText.length > 0 ? undefined : quickLine(record, index, info.lines, mapping);
    if (read) lines.push(read);
    else {
      const found = badText.length > 0 ? badText : problemsOf(record, index, info.lines, mapping);
      problems.push(...(found.length > 0 ? found : [{ line: info.lines, field: 'line', message: 'cannot be read' }]));
    }
  }
  return problems.length > 0 ? { ok: false, problems: problems.slice(0, MAX_PROBLEMS) } : { ok: true, lines };
};
