import type pg from 'pg';
import type { Logger } from './logger.js';

export type Leadership = Readonly<{ stop: () => Promise<void> }>;

/** One process among replicas runs the worker (session advisory lock); a lost lock connection stops it and re-contends. */
export const runWhileLeader = async (
  o: Readonly<{
    pool: pg.Pool;
    name: string;
    start: () => Promise<Readonly<{ stop: () => Promise<void> }>>;
    logger: Logger;
    retryMs?: number;
  }>,
): Promise<Leadership> => {
  const retryMs = o.retryMs ?? 1_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let client: pg.PoolClient | undefined;
  let worker: Readonly<{ stop: () => Promise<void> }> | undefined;

  const resign = async (): Promise<void> => {
    const w = worker;
    worker = undefined;
    const c = client;
    client = undefined;
    await w?.stop().catch((error: unknown) => o.logger.warn({ err: error, leader: o.name }, 'stopping the worker failed'));
    // Returned to the pool, the connection would keep the session lock: end it instead.
    c?.release(true);
  };

  const attempt = async (): Promise<void> => {
    timer = undefined;
    if (stopped) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await o.pool.connect();
      const { rows } = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext(current_schema() || ':' || $1)) AS ok", [
        o.name,
      ]);
      if (!rows[0]?.ok) {
        c.release();
        c = undefined;
      } else if (stopped) {
        c.release(true); // ends the session and its lock
        return;
      } else {
        client = c;
        c.on('error', (error) => {
          if (client !== c) return;
          o.logger.warn({ err: error, leader: o.name }, 'leader lost its lock connection; stepping down');
          void resign().then(schedule);
        });
        worker = await o.start();
        if (stopped) await resign();
        else o.logger.info({ leader: o.name }, 'leader: this process runs the worker');
        return;
      }
    } catch (error) {
      if (c && client !== c) c.release(true);
      if (c && client === c) await resign();
      o.logger.warn({ err: error, leader: o.name }, 'leader election failed; retrying');
    }
    schedule();
  };

  const schedule = (): void => {
    if (stopped || timer) return;
    timer = setTimeout(() => void attempt(), retryMs);
    timer.unref();
  };

  // The first attempt is awaited: a process that can lead has its worker running when this returns.
  await attempt();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await resign();
    },
  };
};
