import type pg from 'pg';

/** Asynchronous commit: derived state is written with its checkpoint, so a batch lost in a crash is applied again. */
export const withLockedTransaction = async <T>(pool: pg.Pool, lockSql: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  let destroy = false;
  // A connection that dies while checked out emits 'error' on the client: without a listener that kills the process.
  const onConnectionError = (): void => {
    destroy = true;
  };
  client.on('error', onConnectionError);
  try {
    await client.query(`BEGIN; SET LOCAL synchronous_commit TO off; ${lockSql}`);
    const result = await fn(client);
    await client.query('COMMIT');
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
