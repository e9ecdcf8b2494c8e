import { MAX_DECIMAL_CHARS, storableDateTime, z } from './validate.js';

/** The spec's filter objects as zod schemas, compiled to SQL: columns only from a FieldMap in code, every value a bind parameter. */

export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;
/** Numbers arrive as JSON numbers (body, JSON `where`) or strings (bracketed query keys). */
export const looseNumber = z.union([
  z.number().finite(),
  z.string().max(MAX_DECIMAL_CHARS).regex(NUMBER, 'Expected a number').transform(Number),
]);
export const looseInt = z
  .union([z.number().int().min(-2147483648).max(2147483647), z.string().regex(INTEGER, 'Expected an integer').transform(Number)])
  .pipe(z.number().int().min(-2147483648).max(2147483647));
export const looseUserId = z
  .union([
    z.number().int().min(1),
    z
      .string()
      .regex(/^\d{1,15}$/, 'Expected a user id')
      .transform(Number),
  ])
  .pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER));
export const decimalString = z.string().max(MAX_DECIMAL_CHARS).regex(NUMBER, 'Expected a decimal string such as "10.5"');
const dateTime = storableDateTime;
const stringList = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()).max(100));

const compare = <T extends z.ZodType>(value: T) => ({
  lt: value.optional(),
  gt: value.optional(),
  lte: value.optional(),
  gte: value.optional(),
});

/** `where` on a GET may be one JSON-encoded string; bracketed keys arrive already nested. */
export const jsonOrObject = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }, schema);

export const NumberFilter = z.strictObject({ ...compare(looseNumber), equals: looseNumber.optional() });
export const IntFilter = z.strictObject({ ...compare(looseInt), equals: looseInt.optional() });
export const DecimalFilter = z.strictObject({ ...compare(decimalString), equals: decimalString.optional() });
export const DateFilter = z.strictObject(compare(dateTime));
export const StringFilter = z.strictObject({
  mode: z.enum(['default', 'insensitive']).optional(),
  equals: z.string().optional(),
  in: stringList.optional(),
  notIn: stringList.optional(),
  not: z.string().optional(),
  ...compare(z.string()),
  contains: z.string().optional(),
  startsWith: z.string().optional(),
  endsWith: z.string().optional(),
});

export type NumberFilter = z.output<typeof NumberFilter>;
export type DecimalFilter = z.output<typeof DecimalFilter>;
export type DateFilter = z.output<typeof DateFilter>;
export type StringFilter = z.output<typeof StringFilter>;

/** How a filter field maps to SQL: a column (fixed in code) and the comparison kind, or a nested filter object. */
export type FieldSpec =
  | Readonly<{ kind: 'equals'; column: string; cast: 'bigint' | 'integer' | 'text' }>
  | Readonly<{ kind: 'number' | 'decimal' | 'date' | 'string'; column: string }>
  | Readonly<{ kind: 'nested'; fields: FieldMap }>;
export type FieldMap = Readonly<Record<string, FieldSpec>>;

const COMPARISONS = [
  ['lt', '<'],
  ['lte', '<='],
  ['gt', '>'],
  ['gte', '>='],
  ['equals', '='],
] as const;
const CAST = { number: 'numeric', decimal: 'numeric', date: 'timestamptz' } as const;

const compileRange = (column: string, cast: string, filter: Readonly<Record<string, unknown>>, p: SqlParams): string[] =>
  COMPARISONS.filter(([op]) => filter[op] !== undefined).map(([op, sql]) => `${column} ${sql} ${p.add(String(filter[op]))}::${cast}`);

/** LIKE treats %, _ and the escape character specially: a literal search must escape them. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export const compileString = (column: string, filter: StringFilter, p: SqlParams): string[] => {
  const insensitive = filter.mode === 'insensitive';
  const col = insensitive ? `lower(${column})` : column;
  const val = (v: string) => (insensitive ? `lower(${p.add(v)})` : p.add(v));
  const list = (vs: readonly string[]) => p.add(insensitive ? vs.map((v) => v.toLowerCase()) : vs);
  const like = insensitive ? 'ILIKE' : 'LIKE';
  const out: string[] = [];
  for (const [op, sql] of COMPARISONS) if (filter[op] !== undefined) out.push(`${col} ${sql} ${val(filter[op])}`);
  if (filter.in !== undefined) out.push(`${col} = ANY(${list(filter.in)}::text[])`);
  if (filter.notIn !== undefined) out.push(`NOT (${col} = ANY(${list(filter.notIn)}::text[]))`);
  if (filter.not !== undefined) out.push(`${col} IS DISTINCT FROM ${val(filter.not)}`);
  if (filter.contains !== undefined) out.push(`${column} ${like} ${p.add(`%${escapeLike(filter.contains)}%`)} ESCAPE '\\'`);
  if (filter.startsWith !== undefined) out.push(`${column} ${like} ${p.add(`${escapeLike(filter.startsWith)}%`)} ESCAPE '\\'`);
  if (filter.endsWith !== undefined) out.push(`${column} ${like} ${p.add(`%${escapeLike(filter.endsWith)}`)} ESCAPE '\\'`);
  return out;
};

/** The conditions (to be ANDed) of a parsed filter object; fields not in the map are ignored (the schema refuses them first). */
export const compileWhere = (fields: FieldMap, where: Readonly<Record<string, unknown>> | undefined, p: SqlParams): string[] => {
  if (!where) return [];
  const out: string[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    const value = where[name];
    if (value === undefined || value === null) continue;
    switch (spec.kind) {
      case 'equals':
        out.push(`${spec.column} = ${p.add(String(value))}::${spec.cast}`);
        break;
      case 'string':
        out.push(...compileString(spec.column, value as StringFilter, p));
        break;
      case 'nested':
        out.push(...compileWhere(spec.fields, value as Record<string, unknown>, p));
        break;
      default:
        out.push(...compileRange(spec.column, CAST[spec.kind], value as Record<string, unknown>, p));
    }
  }
  return out;
};

export const whereClause = (conditions: readonly string[]): string => (conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`);

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
type Nested = { [key: string]: Nested | string | Array<Nested | string> };

/** Bracketed query keys as a nested object (express 5 keeps them flat); repeats become arrays, prototype keys drop, depth stops at 6. */
export const nestedQuery = (url: string): Nested => {
  const root: Nested = Object.create(null) as Nested;
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const [key, value] of new URLSearchParams(query)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    const path = match ? [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)] : [key];
    if (path.length > 6 || path.some((k) => UNSAFE_KEYS.has(k))) continue;
    let node: Nested = root;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsPush = path[i + 1] === '';
      if (segment === '') return;
      if (last || nextIsPush) {
        const existing = node[segment];
        const arrayWanted = nextIsPush || existing !== undefined;
        if (!arrayWanted) node[segment] = value;
        else node[segment] = [...(Array.isArray(existing) ? existing : existing === undefined ? [] : [existing]), value];
        return;
      }
      const child = node[segment];
      if (child === undefined || typeof child === 'string' || Array.isArray(child)) node[segment] = Object.create(null) as Nested;
      node = node[segment] as Nested;
    });
  }
  return root;
};
