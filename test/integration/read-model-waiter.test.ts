import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector, type Projector } from '../../src/projections/projection-runner.js';
import { createReadModelWaiter } from '../../src/projections/read-model-waiter.js';
import { appendScripted, ledgerSchema, type LedgerSchema } from '../support/ledger-schema.js';
import { RandomWallets, seeded } from '../unit/projections/random-wallets.js';
import { WalletScript } from '../unit/projections/wallet-fixtures.js';

describe('a consistent read while the projector starts', () => {
  let schema: LedgerSchema;
  let projector: Projector | undefined;
  beforeAll(async () => {
    schema = await ledgerSchema('read_model_waiter');
    await appendScripted(schema.store, new RandomWallets(new WalletScript(), seeded(3), 3), 20);
  });
  afterAll(async () => {
    await projector?.stop();
    await schema?.close();
  });

  it('when no projector ever ran, then a read answers stale at once', async () => {
    const waiter = createReadModelWaiter({ pool: schema.pool, store: schema.store });
    const started = performance.now();
    expect((await waiter.reach(['bets', 'admin-audit'], undefined, 5_000)).stale).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it('when this process has just started its projector, then a read waits for the read models it is preparing', async () => {
    projector = startProjector({ store: schema.store, pool: schema.pool, projections: allProjections });
    const waiter = createReadModelWaiter({ pool: schema.pool, store: schema.store, local: projector });
    const reached = await waiter.reach(['bets', 'admin-audit'], undefined, 20_000);
    expect(reached.stale).toBe(false);
    const { rows } = await schema.pool.query(`SELECT count(*)::int AS n FROM projection_checkpoints WHERE name = 'admin-audit'`);
    expect(rows).toEqual([{ n: 1 }]);
  });
});
