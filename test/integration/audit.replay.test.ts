import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { houseBalances, parsePointInTime, replayUser } from '../../src/audit/balance-replay.js';
import { createLedgerEnv, type LedgerEnv } from '../support/ledger-env.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { eventsAtMinutes, playScenario, runLedgerScript, untilVisible } from '../support/audit-ledger.js';

const ALICE = 101;
const BOB = 202;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const minute = (n: number): string => new Date(T0 + n * 60_000).toISOString();

/** Sets one stored event's business time, leaving its recording time as it is. */
const setBusinessTime = (revision: string, at: string) =>
  env.pool.query(
    `UPDATE events SET data = data || jsonb_build_object('effectiveAt', $1::text) WHERE stream_id = $2 AND stream_revision = $3`,
    [at, `wallet-${ALICE}`, revision],
  );

type Row = { position: string; stream_id: string; revision: string; type: string; minute: number };

let env: LedgerEnv;
/** Alice's wallet events in revision order, each recorded at a known minute (its rank in global order). */
let alice: Row[];
const find = (type: string, nth = 0): Row => alice.filter((r) => r.type === type)[nth]!;

beforeAll(async () => {
  env = await createLedgerEnv('audit_replay');
  await playScenario(env.ledger, { alice: ALICE, bob: BOB });
  await eventsAtMinutes(env.pool, minute(0));
  const { rows } = await env.pool.query<Row>(
    `SELECT transaction_id::text || '/' || global_position AS position, stream_id, stream_revision::text AS revision, type,
      (extract(epoch FROM created_at - $1::timestamptz) / 60)::int AS minute
    FROM events WHERE stream_id = $2 ORDER BY stream_revision`,
    [minute(0), `wallet-${ALICE}`],
  );
  alice = rows;
  await untilVisible(env.store, env.pool);
});
afterAll(async () => {
  await env?.close();
});

describe('replay of one wallet at a point in time', () => {
  it('when replayed at a time between the first payout and the next bet, then the balance is the one known after the payout, with the movements that led there', async () => {
    const settled = find('BetSettled');
    expect(find('BetPlaced', 1).minute).toBeGreaterThan(settled.minute);
    const at = new Date(Date.parse(minute(settled.minute)) + 30_000);
    const replay = await replayUser({ store: env.store }, ALICE, { kind: 'time', at });
    expect(replay.balances).toEqual([{ currencyId: 'BTC', amount: '2' }]);
    expect(replay.movements.map((m) => [m.type, m.currencyId, m.amount, m.balance])).toEqual([
      ['DepositCompleted', 'BTC', '1.5', '1.5'],
      ['BetPlaced', 'BTC', '-0.5', '1'],
      ['BetSettled', 'BTC', '1', '2'],
    ]);
    expect(replay.position).toBe(settled.position);
    expect(replay.at).toBe(at.toISOString());
    // DepositRequested counts as an event of the wallet but moves no balance.
    expect(replay.events).toBe(alice.filter((r) => r.minute <= settled.minute).length);
  });

  it('when replayed at the global position of the rollback, then the stake is back and nothing later is included', async () => {
    const rollback = find('BetRolledBack');
    const p = parsePointInTime(rollback.position);
    if ('error' in p) throw new Error(p.error);
    const replay = await replayUser({ store: env.store }, ALICE, p);
    expect(replay.balances).toEqual([{ currencyId: 'BTC', amount: '2' }]);
    expect(replay.movements.map((m) => [m.type, m.amount, m.balance]).slice(-2)).toEqual([
      ['BetPlaced', '-0.2', '1.8'],
      ['BetRolledBack', '0.2', '2'],
    ]);
    expect(replay.position).toBe(rollback.position);
  });

  it('when replayed now, then every currency ends where the commands left it, each movement carrying its running balance', async () => {
    const replay = await replayUser({ store: env.store }, ALICE);
    expect(replay.balances).toEqual([
      { currencyId: 'BTC', amount: '1.7' },
      { currencyId: 'USDT', amount: '69.5' },
    ]);
    expect(replay.movements.map((m) => [m.type, m.amount, m.balance])).toEqual([
      ['DepositCompleted', '1.5', '1.5'],
      ['BetPlaced', '-0.5', '1'],
      ['BetSettled', '1', '2'],
      ['BetPlaced', '-0.2', '1.8'],
      ['BetRolledBack', '0.2', '2'],
      ['WithdrawalRequested', '-0.3', '1.7'],
      ['WithdrawalRequested', '-0.1', '1.6'],
      ['WithdrawalRejected', '0.1', '1.7'],
      ['AdminTipCredited', '100', '100'],
      ['AdminTipDeducted', '-30.5', '69.5'],
    ]);
    expect(replay.events).toBe(alice.length);
    expect(replay.at).toBeNull();
  });

  it('when a later event carries an earlier business time (a back-dated item), then a replay by time includes it: the time is a filter, not a stop', async () => {
    const settled = find('BetSettled');
    const secondBet = find('BetPlaced', 1);
    await setBusinessTime(secondBet.revision, minute(settled.minute - 1));
    try {
      const replay = await replayUser({ store: env.store }, ALICE, {
        kind: 'time',
        at: new Date(Date.parse(minute(settled.minute)) + 30_000),
      });
      expect(replay.balances).toEqual([{ currencyId: 'BTC', amount: '1.8' }]);
      expect(replay.position).toBe(secondBet.position);
    } finally {
      await setBusinessTime(secondBet.revision, minute(secondBet.minute));
    }
  });

  it('when an item is recorded late with an earlier business time, then as of that time it counts, and as known before its recording it does not', async () => {
    const settled = find('BetSettled');
    const secondBet = find('BetPlaced', 1);
    const asOf = new Date(Date.parse(minute(settled.minute)) + 30_000);
    await setBusinessTime(secondBet.revision, minute(settled.minute - 1));
    try {
      const byBusinessTime = await replayUser({ store: env.store }, ALICE, { kind: 'time', at: asOf });
      const asKnownThen = await replayUser({ store: env.store }, ALICE, { kind: 'time', at: asOf }, asOf);
      const asKnownLater = await replayUser({ store: env.store }, ALICE, { kind: 'time', at: asOf }, new Date(minute(secondBet.minute)));
      expect(byBusinessTime.balances).toEqual([{ currencyId: 'BTC', amount: '1.8' }]);
      expect(asKnownThen.balances).toEqual([{ currencyId: 'BTC', amount: '2' }]);
      expect(asKnownThen.knownAt).toBe(asOf.toISOString());
      expect(asKnownLater.balances).toEqual([{ currencyId: 'BTC', amount: '1.8' }]);
      expect(byBusinessTime.movements.find((m) => m.type === 'BetPlaced' && m.amount === '-0.2')?.effectiveAt).toBe(
        minute(settled.minute - 1),
      );

      const house = (knownAt?: Date) => houseBalances({ store: env.store }, { kind: 'time', at: asOf }, { knownAt });
      const aliceBtc = (h: Awaited<ReturnType<typeof houseBalances>>) =>
        h.accounts.find((a) => a.account === `user:${ALICE}` && a.currencyId === 'BTC')?.balance;
      expect(aliceBtc(await house())).toBe('1.8');
      expect(aliceBtc(await house(asOf))).toBe('2');

      const cli = async (...extra: string[]) => {
        const run = await runLedgerScript(['balance', '--at', asOf.toISOString(), ...extra, '--schema', env.db.schema, '--json'], {
          DATABASE_URL: TEST_DATABASE_URL,
        });
        expect(run.code, run.stderr).toBe(0);
        return JSON.parse(run.stdout) as Awaited<ReturnType<typeof houseBalances>>;
      };
      expect(aliceBtc(await cli())).toBe('1.8');
      expect(aliceBtc(await cli('--known-at', asOf.toISOString()))).toBe('2');
    } finally {
      await setBusinessTime(secondBet.revision, minute(secondBet.minute));
    }
  });

  it('when the wallet has no events before the point, then no balances and no movements', async () => {
    const replay = await replayUser({ store: env.store }, ALICE, { kind: 'time', at: new Date(T0 - 1) });
    expect(replay).toMatchObject({ balances: [], movements: [], events: 0, position: null });
  });

  it('when the point is malformed, then it is refused with a reason', () => {
    for (const bad of ['yesterday', '2026-01-01', '2026-01-01T00:00:00', '12/', '-1/5', '2026-13-45T00:00:00Z']) {
      expect(parsePointInTime(bad), bad).toHaveProperty('error');
    }
    expect(parsePointInTime('2026-01-01T10:00:00+02:00')).toEqual({ kind: 'time', at: new Date('2026-01-01T08:00:00Z') });
    expect(parsePointInTime('17/42')).toEqual({ kind: 'position', at: { commit: 17n, prepare: 42n } });
    expect(parsePointInTime(undefined)).toEqual({ kind: 'now' });
  });
});

describe('balances of the whole house at a point in time', () => {
  it('when folded at the time of the first payout, then every account has its balance and the trial balance is zero', async () => {
    const settled = find('BetSettled');
    const house = await houseBalances({ store: env.store }, { kind: 'time', at: new Date(minute(settled.minute)) });
    expect(house.accounts).toEqual([
      { account: 'house:bets', currencyId: 'BTC', balance: '0.5' },
      { account: 'house:deposits', currencyId: 'BTC', balance: '-1.5' },
      { account: 'house:payouts', currencyId: 'BTC', balance: '-1' },
      { account: `user:${ALICE}`, currencyId: 'BTC', balance: '2' },
    ]);
    expect(house.trial).toEqual([{ currencyId: 'BTC', amount: '0' }]);
    expect(house.balanced).toBe(true);
  });

  it('when folded now, then every account of both wallets and every currency balances to zero', async () => {
    const house = await houseBalances({ store: env.store }, undefined, { batchSize: 3 });
    const of = (account: string, currencyId: string) =>
      house.accounts.find((a) => a.account === account && a.currencyId === currencyId)?.balance;
    expect([of(`user:${ALICE}`, 'BTC'), of(`user:${ALICE}`, 'USDT'), of(`user:${BOB}`, 'ETH'), of(`user:${BOB}`, 'USDC')]).toEqual([
      '1.7',
      '69.5',
      '3.25',
      '2.5',
    ]);
    expect([
      of('house:withdrawals', 'BTC'),
      of('house:withdrawals-held', 'BTC'),
      of('house:adjustments', 'ETH'),
      of('house:prizes', 'ETH'),
      of('house:affiliate', 'USDC'),
    ]).toEqual(['0.3', '0', '-1.5', '-0.25', '-2.5']);
    expect(house.trial).toEqual([
      { currencyId: 'BTC', amount: '0' },
      { currencyId: 'ETH', amount: '0' },
      { currencyId: 'USDC', amount: '0' },
      { currencyId: 'USDT', amount: '0' },
    ]);
    expect(house.balanced).toBe(true);
  });

  it('when an event with unbalanced postings is forged into the store, then the trial balance is off by exactly its amount and says so', async () => {
    const forged = await env.pool.query<{ global_position: string }>(`INSERT INTO events (stream_id, stream_revision, event_id, type, data)
      VALUES ('wallet-303', 0, gen_random_uuid(), 'AdminTipCredited',
        '{"currencyId":"BTC","postings":[{"account":"user:303","currencyId":"BTC","amount":"5"}],"balanceAfter":"5","amount":"5"}')
      RETURNING global_position`);
    try {
      await untilVisible(env.store, env.pool);
      const house = await houseBalances({ store: env.store });
      expect(house.balanced).toBe(false);
      expect(house.trial.find((t) => t.currencyId === 'BTC')).toEqual({ currencyId: 'BTC', amount: '5' });
    } finally {
      await env.pool.query('DELETE FROM events WHERE global_position = $1', [forged.rows[0]!.global_position]);
    }
  });
});

describe('npm run ledger -- replay (child process)', () => {
  it('when run with --user and --at on the test schema, then it exits 0 and prints the balance and the movements', async () => {
    const settled = find('BetSettled');
    const run = await runLedgerScript(['replay', '--user', String(ALICE), '--at', settled.position, '--schema', env.db.schema, '--json'], {
      DATABASE_URL: TEST_DATABASE_URL,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { balances: unknown; movements: { type: string }[] };
    expect(out.balances).toEqual([{ currencyId: 'BTC', amount: '2' }]);
    expect(out.movements.map((m) => m.type)).toEqual(['DepositCompleted', 'BetPlaced', 'BetSettled']);
    const text = await runLedgerScript(['replay', '--user', String(ALICE), '--schema', env.db.schema], { DATABASE_URL: TEST_DATABASE_URL });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/balances\n\s+BTC\s+1\.7\n\s+USDT\s+69\.5/);
    expect(text.stdout).toMatch(/WithdrawalRejected\s+\S+\s+BTC\s+0\.1\s+1\.7/);
  });
});
