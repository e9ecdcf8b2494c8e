import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createUsers, type Users } from '../../src/commands/users.js';
import { amlHooks, createAml } from '../../src/compliance/aml.js';
import { listAmlFlags } from '../../src/compliance/aml.queries.js';
import { amlSettingsFrom } from '../../src/compliance/aml.settings.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { migrateAll } from '../../src/schema.js';

/** AML thresholds on linked transactions and withdrawals held for review, on a clock the test moves. */
describe('AML thresholds in the write path', () => {
  let db: TestDb;
  let pool: ReturnType<TestDb['pool']>;
  let store: ReturnType<typeof createPostgresEventStore>;
  let ledger: ReturnType<typeof createLedger>;
  let aml: ReturnType<typeof createAml>;
  let users: Users;
  let now = Date.parse('2026-04-01T08:00:00.000Z');
  const clock = () => new Date(now);
  // EUR 2,000 at 1.08 USD per EUR: 2,160 USD, in 24 hours; the required KYC level is 1 and a player with no record is LEVEL_0.
  const settings = amlSettingsFrom({ AML_THRESHOLD_EUR: '2000', AML_EUR_USD_RATE: '1.08' });
  beforeAll(async () => {
    db = await createTestDb('aml');
    pool = db.pool({ max: 6 });
    await migrateAll(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
    aml = createAml({ store, pool, settings, clock });
    users = createUsers({ store, pool, clock });
    ledger = createLedger({ store, pool, clock, aml: amlHooks(aml, users) });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  const deposit = async (userId: number, usd: string) => {
    const d = await ledger.requestDeposit({
      externalId: `aml-${userId}-${usd}-${now}`,
      userId,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: usd,
      usdAmount: usd,
    });
    if (isLeft(d)) throw new Error(JSON.stringify(d.left));
    expect(isRight(await ledger.completeDeposit(d.right.deposit.id, {}))).toBe(true);
  };
  const withdraw = async (userId: number, usd: string) => {
    const w = await ledger.requestWithdrawal({
      userId,
      currencyId: 'USDT',
      networkId: 'ETH',
      providerId: 'TEST',
      amount: usd,
      usdAmount: usd,
      recipientAddress: '0xrecipient',
    });
    if (isLeft(w)) throw new Error(JSON.stringify(w.left));
    return w.right.withdrawal;
  };
  const flagsOf = async (userId: number) => (await listAmlFlags(pool)).filter((f) => f.userId === userId);

  it('when the threshold is configured in EUR with a rate, then it is the USD equivalent in integers', () => {
    expect(settings.thresholdUsd).toBe(216_000_000_000n);
    expect(amlSettingsFrom({ AML_THRESHOLD_USD: '1500.5' }).thresholdUsd).toBe(150_050_000_000n);
  });

  it('when linked deposits and withdrawals stay just under the threshold, then no flag; a cent more, then one flag with the total', async () => {
    await deposit(1, '1500');
    await withdraw(1, '659.99');
    expect(await flagsOf(1)).toEqual([]);
    now += 3_600_000;
    await deposit(1, '0.01');
    const flags = await flagsOf(1);
    expect(flags).toMatchObject([{ kind: 'linked-transactions', linkedUsd: '2160', thresholdUsd: '2160', status: 'OPEN' }]);
    // One open at a time: more linked money adds no second flag until the first is cleared.
    await deposit(1, '10');
    expect(await flagsOf(1)).toHaveLength(1);
  });

  it('when the linked transactions are older than the window, then they no longer count', async () => {
    await deposit(2, '2000');
    now += 26 * 3_600_000;
    await deposit(2, '200');
    expect(await flagsOf(2)).toEqual([]);
  });

  it('when a withdrawal over the threshold is requested below the KYC level, then it is held and cannot be approved until its flag is cleared', async () => {
    await deposit(3, '1000');
    now += 48 * 3_600_000;
    await deposit(3, '1500');
    now += 48 * 3_600_000;
    const small = await withdraw(3, '100');
    expect(await flagsOf(3)).toEqual([]);
    now += 48 * 3_600_000;
    const big = await withdraw(3, '2160.01');
    // The withdrawal alone is linked money over the threshold too: a linked-transactions flag beside the review one.
    const flags = await flagsOf(3);
    expect(flags.map((f) => f.kind).sort()).toEqual(['linked-transactions', 'withdrawal-review']);
    const flag = flags.find((f) => f.kind === 'withdrawal-review');
    expect(flag).toMatchObject({ withdrawalId: big.id, linkedUsd: '2160.01', status: 'OPEN' });
    const refused = await ledger.approveWithdrawal(big.id, 77);
    expect(isLeft(refused) && refused.left).toEqual({ _tag: 'WithdrawalUnderReview', withdrawalId: big.id });
    expect(isRight(await ledger.approveWithdrawal(small.id, 77))).toBe(true);
    expect(await aml.clear(flag!.id, '   ', 77)).toMatchObject({ left: { _tag: 'AmlNoteRequired' } });
    expect(isRight(await aml.assign(flag!.id, 78, 77))).toBe(true);
    const cleared = await aml.clear(flag!.id, 'source of funds: salary slips checked', 78);
    expect(cleared).toMatchObject({ right: { status: 'CLEARED', assigneeUserId: 78, clearedByUserId: 78 } });
    expect(await aml.clear(flag!.id, 'again', 78)).toMatchObject({ left: { _tag: 'AmlFlagCleared' } });
    expect(isRight(await ledger.approveWithdrawal(big.id, 77))).toBe(true);
    // Cleared, never deleted: the flag stays listed with its note.
    expect((await flagsOf(3)).find((f) => f.id === flag!.id)).toMatchObject({
      status: 'CLEARED',
      note: 'source of funds: salary slips checked',
    });
  });

  const player = async (name: string) => {
    const registered = await users.register({
      email: `${name}@example.com`,
      username: name,
      passwordHash: null,
      country: 'DE',
      referrerCode: null,
      marketingOptIn: false,
      registration: { ip: null, userAgent: null, country: null, referrer: null },
      provider: 'password',
    });
    if (isLeft(registered)) throw new Error(JSON.stringify(registered.left));
    return registered.right.userId;
  };
  /** Held: a withdrawal-review flag names it and its approval is refused; else it is approved. */
  const isHeld = async (w: Awaited<ReturnType<typeof withdraw>>): Promise<boolean> => {
    const review = (await flagsOf(w.userId)).some((f) => f.kind === 'withdrawal-review' && f.withdrawalId === w.id);
    const approved = await ledger.approveWithdrawal(w.id, 77);
    expect(isRight(approved)).toBe(!review);
    if (review) expect(isLeft(approved) && approved.left).toEqual({ _tag: 'WithdrawalUnderReview', withdrawalId: w.id });
    return review;
  };
  const setKyc = async (userId: number, level: 'LEVEL_0' | 'LEVEL_1' | 'LEVEL_2') =>
    expect(isRight(await users.execute(userId, { type: 'SetKycLevel', data: { level } }, 77))).toBe(true);

  it('when the stored KYC level is below the required one, then a withdrawal over the threshold is held; at or above, not', async () => {
    // Registered players get ids of their own, clear of the wallet-only players 1 to 3 above.
    await pool.query(`SELECT setval('user_id_seq', 1000)`);
    const [unverified, verified, beyond] = [await player('kycnone'), await player('kycone'), await player('kyctwo')];
    await setKyc(unverified, 'LEVEL_0');
    await setKyc(verified, 'LEVEL_1');
    await setKyc(beyond, 'LEVEL_2');
    for (const userId of [unverified, verified, beyond]) await deposit(userId, '2500');
    now += 48 * 3_600_000;
    expect(await isHeld(await withdraw(unverified, '2160.01'))).toBe(true);
    // At or above the level: no review flag, and the withdrawal can be approved at once.
    for (const userId of [verified, beyond]) expect(await isHeld(await withdraw(userId, '2160.01'))).toBe(false);
  });

  it('when the level is read for the hold, then it is the one set last in the user stream (lowered again, held again)', async () => {
    const userId = await player('kycdown');
    await setKyc(userId, 'LEVEL_1');
    await deposit(userId, '5000');
    now += 48 * 3_600_000;
    expect(await isHeld(await withdraw(userId, '2200'))).toBe(false);
    await setKyc(userId, 'LEVEL_0');
    expect(await isHeld(await withdraw(userId, '2200'))).toBe(true);
  });
});
