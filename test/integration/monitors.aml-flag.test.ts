import { isLeft } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createUsers } from '../../src/commands/users.js';
import { amlHooks, createAml } from '../../src/compliance/aml.js';
import { amlSettingsFrom } from '../../src/compliance/aml.settings.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { monitorsProjection } from '../../src/monitors/monitors.projection.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { migrateAll } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { eventually } from '../support/eventually.js';

describe('monitors: an AML flag raised is an alert of each aml-flag monitor over whose threshold it is', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let store: ReturnType<typeof createPostgresEventStore>;
  let ledger: ReturnType<typeof createLedger>;
  let projector: Projector;
  const clock = () => new Date('2026-04-01T08:00:00.000Z');
  beforeAll(async () => {
    db = await createTestDb('monitors_aml');
    pool = db.pool({ max: 6 });
    await migrateAll(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
    const aml = createAml({ store, pool, settings: amlSettingsFrom({ AML_THRESHOLD_USD: '1000' }), clock });
    ledger = createLedger({ store, pool, clock, aml: amlHooks(aml, createUsers({ store, pool })) });
    await pool.query(
      `INSERT INTO monitors (type, threshold_usd, created_by, created_at)
       VALUES ('aml-flag', NULL, 1, '2026-01-01'), ('aml-flag', '5000', 1, '2026-01-01')`,
    );
    projector = startProjector({ store, pool, projections: [monitorsProjection] });
  });
  afterAll(async () => {
    await projector?.stop();
    await store.close();
    await db.drop();
  });

  it('fires the unconditional monitor once for the flag, and not the one whose threshold is above the linked total', async () => {
    const d = await ledger.requestDeposit({
      externalId: 'aml-m-1',
      userId: 42,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '1500',
      usdAmount: '1500',
    });
    if (isLeft(d)) throw new Error(JSON.stringify(d.left));
    const alerts = await eventually(async () => {
      const { rows } = await pool.query<{ monitor_id: string; subject: string; user_id: string; amount: string }>(
        'SELECT monitor_id, subject, user_id, trim_scale(amount_usd)::text AS amount FROM monitor_alerts',
      );
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(alerts[0]).toMatchObject({ monitor_id: '1', user_id: '42', amount: '1500' });
    expect(alerts[0]!.subject).toMatch(/^aml-flag:/);
  });
});
