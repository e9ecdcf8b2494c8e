/** Column names come only from a FieldMap written in code; every value the caller sent becomes a bind parameter. */

export type DateFilter = Readonly<{ lt?: string | undefined; gt?: string | undefined; lte?: string | undefined; gte?: string | undefined }>;

export type StringFilter = Readonly<{
  mode?: 'default' | 'insensitive' | undefined;
  equals?: string | undefined;
  in?: readonly string[] | undefined;
  notIn?: readonly string[] | undefined;
  not?: string | undefined;
  lt?: string | undefined;
  gt?: string | undefined;
  lte?: string | undefined;
  gte?: string | undefined;
  contains?: string | undefined;
  startsWith?: string | undefined;
  endsWith?: string | undefined;
}>;

/** Collects bind values; `add` answers the placeholder (`$3`). */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

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
