import type pg from 'pg';
import type { Sql } from './projection.js';

const MAX_PARAMS = 8;
/**
 * A value is encoded twice in the call (its JSON inside the call's JSON); past this it goes alone. The rows of a busy ledger's
 * batch pass 64 KB, and sending them alone costs the batch the long way's four or five round trips.
 */
const MAX_SHARED_CHARS = 1024 * 1024;
const UNCAST = /\$\d+(?!\d|::)/;

type Scalar = string | number | bigint | boolean | null | undefined;
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'bigint', 'boolean', 'undefined'].includes(typeof v);

/** A parameter as PostgreSQL's text form: what the statement's own cast (`$1::json`, `$1::text[]`) reads back. */
const asText = (value: Scalar | readonly Scalar[]): string | null => {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return `{${value.map((v) => (v == null ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
  return String(value);
};
const isBindable = (v: unknown): v is Scalar | readonly Scalar[] =>
  isScalar(v) ? typeof v !== 'string' || v.length <= MAX_SHARED_CHARS : Array.isArray(v) && v.every(isScalar);

/** Bound as text only when every parameter is cast in the statement; else its types come from the driver, one round trip alone. */
const sharable = (s: Sql): boolean => s.values.length <= MAX_PARAMS && !UNCAST.test(s.text) && s.values.every(isBindable);

const argsOf = (run: readonly Sql[]): string => JSON.stringify(run.map((s) => (s.values as (Scalar | readonly Scalar[])[]).map(asText)));

export type CheckedBatch = Readonly<{
  /** The projector's lock keys (hashed with the schema): the global one, shared, then each read model's, in lock order. */
  globalKey: string;
  modelKeys: readonly string[];
  names: readonly string[];
  versions: readonly number[];
  /** Each read model's stored checkpoint as this process believes it to be. */
  expected: readonly string[];
  to: string;
}>;

/** A live batch in one call (`projection_batch`); undefined, nothing written, when a checkpoint moved elsewhere: take the long way. */
export const applyCheckedBatch = async (pool: pg.Pool, batch: CheckedBatch, statements: readonly Sql[]): Promise<number[] | undefined> => {
  if (!statements.every(sharable)) return undefined;
  const { rows } = await pool.query<{ spent: number[] | null }>(
    'SELECT projection_batch($1::text, $2::text[], $3::text[], $4::int[], $5::text[], $6::text, $7::text[], $8::jsonb) AS spent',
    [
      batch.globalKey,
      batch.modelKeys,
      batch.names,
      batch.versions,
      batch.expected,
      batch.to,
      statements.map((st) => st.text),
      argsOf(statements),
    ],
  );
  return rows[0]?.spent ?? undefined;
};

/** Runs the statements in order, consecutive sharable ones in one round trip (`projection_apply`); the ms each took. */
export const applyStatements = async (client: pg.ClientBase, statements: readonly Sql[]): Promise<number[]> => {
  const spent: number[] = [];
  for (let i = 0; i < statements.length;) {
    const run: Sql[] = [];
    while (i < statements.length && sharable(statements[i]!)) run.push(statements[i++]!);
    if (run.length > 1) {
      const { rows } = await client.query<{ spent: number[] }>('SELECT projection_apply($1::text[], $2::jsonb) AS spent', [
        run.map((s) => s.text),
        argsOf(run),
      ]);
      spent.push(...rows[0]!.spent);
      continue;
    }
    const s = run[0] ?? statements[i++]!;
    const started = performance.now();
    await client.query(s.text, s.values);
    spent.push(performance.now() - started);
  }
  return spent;
};
