import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { runWhileLeader, type Leadership } from '../../src/infra/leader.js';
import { createLogger } from '../../src/infra/logger.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { waitFor } from '../support/service-process.js';

const logger = createLogger({ level: 'silent' });

describe('runWhileLeader', () => {
  let db: TestDb;
  let pools: pg.Pool[];
  beforeAll(async () => {
    db = await createTestDb('leader');
    pools = [db.pool({ max: 3 }), db.pool({ max: 3 }), db.pool({ max: 3 })];
  });
  afterAll(async () => {
    await db.drop();
  });

  it('when two replicas contend, then one runs the worker; when its lock connection is killed or it stops, the other takes over', async () => {
    const running = new Set<string>();
    const started: string[] = [];
    const replica = (name: string, pool: pg.Pool): Promise<Leadership> =>
      runWhileLeader({
        pool,
        name: 'test-worker',
        logger,
        retryMs: 50,
        start: async () => {
          running.add(name);
          started.push(name);
          return {
            stop: async () => {
              running.delete(name);
            },
          };
        },
      });
    const a = await replica('a', pools[0]!);
    const b = await replica('b', pools[1]!);
    expect([...running]).toEqual(['a']);

    // The leader's lock connection dies (as in a server restart): it steps down and someone leads again.
    await pools[2]!.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND objid = hashtext($1 || ':test-worker')::oid",
      [db.schema],
    );
    expect(await waitFor(async () => (running.size === 1 && started.length >= 2 ? true : undefined), 10_000)).toBe(true);
    const leader = [...running][0]!;
    await (leader === 'a' ? a : b).stop();
    expect(await waitFor(async () => (running.size === 1 && [...running][0] !== leader ? true : undefined), 10_000)).toBe(true);
    await (leader === 'a' ? b : a).stop();
    expect(running.size).toBe(0);
  });
});
