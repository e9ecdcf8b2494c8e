import { MAX_DECIMAL_CHARS, storableDateTime, z } from './validate.js';

export { compileString, compileWhere, escapeLike, SqlParams, whereClause, type FieldMap, type FieldSpec } from '../read-models/where.js';

/** The spec's filter objects as zod schemas; src/read-models/where.ts compiles a parsed one to SQL. */
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
