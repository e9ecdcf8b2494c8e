import pg from 'pg';

// NUMERIC and BIGINT come back as strings: no JavaScript number on a money path.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export type PoolOptions = Readonly<{
  connectionString: string;
  max?: number;
  schema?: string;
  applicationName?: string;
  /** A writer that holds a transaction open stalls every catch-up reader; PostgreSQL ends it after this long. */
  idleInTransactionTimeoutMs?: number;
  /** Off only for writes a later synchronous commit makes durable too (WAL flushes in order); losing them in a crash is harmless. */
  synchronousCommit?: boolean;
  /** Longest wait for a connection (pool full, or server unreachable) before the query fails; default none. */
  connectionTimeoutMs?: number;
  /** PostgreSQL cancels a statement running longer (57014, answered 503); default none. */
  statementTimeoutMs?: number;
}>;

export const createPool = (o: PoolOptions): pg.Pool => {
  const settings = [`-c idle_in_transaction_session_timeout=${o.idleInTransactionTimeoutMs ?? 10_000}`];
  if (o.synchronousCommit === false) settings.push('-c synchronous_commit=off');
  if (o.statementTimeoutMs !== undefined) settings.push(`-c statement_timeout=${o.statementTimeoutMs}`);
  if (o.schema) settings.push(`-c search_path=${o.schema},public`);
  return withErrorListeners(
    new pg.Pool({
      connectionString: o.connectionString,
      max: o.max ?? 10,
      application_name: o.applicationName ?? 'casino-ledger',
      options: settings.join(' '),
      ...(o.connectionTimeoutMs === undefined ? {} : { connectionTimeoutMillis: o.connectionTimeoutMs }),
    }),
  );
};

const withErrorListeners = (pool: pg.Pool): pg.Pool => {
  // Without an 'error' listener an idle connection the server ended would crash the process.
  pool.on('error', () => undefined);
  // The same for a checked-out one between two statements: its next query fails instead, and release() drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
};

/** `max` more connections like `pool`'s (server, schema, timeouts) with extra `-c name=value` settings; end() it with its owner. */
export const siblingPool = (pool: pg.Pool, max: number, settings: readonly string[]): pg.Pool =>
  withErrorListeners(
    new pg.Pool({
      ...pool.options,
      password: pool.options.password, // not enumerable: pg-pool hides it from logs
      max,
      options: [pool.options.options ?? '', ...settings.map((x) => `-c ${x}`)].join(' ').trim(),
      allowExitOnIdle: true,
    }),
  );

export type TransactionOptions = Readonly<{
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  readOnly?: boolean;
  /** A connection the caller already holds (and keeps): used as is, not released. */
  client?: pg.PoolClient;
  /** Taken first and held until COMMIT/ROLLBACK: serialises this transaction per schema across processes. */
  advisoryLock?: string;
  synchronousCommit?: boolean;
}>;

const beginSql = (o: TransactionOptions): string =>
  [
    ['BEGIN', ...(o.isolation ? [`ISOLATION LEVEL ${o.isolation.toUpperCase()}`] : []), ...(o.readOnly ? ['READ ONLY'] : [])].join(' '),
    ...(o.synchronousCommit === false ? ['SET LOCAL synchronous_commit TO off'] : []),
  ].join('; ');

export const inTransaction = async <T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> => {
  const client = options.client ?? (await pool.connect());
  let broken = false;
  try {
    await client.query(beginSql(options));
    if (options.advisoryLock !== undefined) {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || $1))`, [options.advisoryLock]);
    }
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    // A connection that cannot even roll back is destroyed, not returned to the pool.
    if (!options.client) client.release(broken);
  }
};
