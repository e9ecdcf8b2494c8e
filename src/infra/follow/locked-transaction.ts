import type pg from 'pg';

/** Asynchronous commit: derived state is written with its checkpoint, so a batch lost in a crash is applied again. */
/** `lockSql` may carry more statements (their results reach `fn`); `finish` folds a last statement into the COMMIT's round trip. */
export const withLockedTransaction = async <T>(
  pool: pg.Pool,
  lockSql: string,
  fn: (client: pg.PoolClient, begun: readonly pg.QueryResult[]) => Promise<T>,
  finish?: (result: T) => string | undefined,
): Promise<T> => {
  const client = await pool.connect();
  let destroy = false;
  // A connection that dies while checked out emits 'error' on the client: without a listener that kills the process.
  const onConnectionError = (): void => {
    destroy = true;
  };
  client.on('error', onConnectionError);
  try {
    const begun = (await client.query(`BEGIN; SET LOCAL synchronous_commit TO off; ${lockSql}`)) as unknown as pg.QueryResult[];
    const result = await fn(client, begun);
    const last = finish?.(result);
    await client.query(last ? `${last}; COMMIT` : 'COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      destroy = true;
    });
    throw error;
  } finally {
    client.off('error', onConnectionError);
    client.release(destroy);
  }
};
