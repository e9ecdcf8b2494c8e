import { spawn } from 'node:child_process';
import type pg from 'pg';
import type { Ledger } from '../../src/commands/ledger.types.js';
import { comparePositions, START, type EventStore, type Position } from '../../src/infra/event-store/event-store.port.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector } from '../../src/projections/index.js';
import { eventuallyTrue } from './eventually.js';

const ok = async <T>(result: Promise<{ _tag: 'Left'; left: { _tag: string } } | { _tag: 'Right'; right: T }>): Promise<T> => {
  const r = await result;
  if (r._tag === 'Left') throw new Error(`scenario step refused: ${r.left._tag}`);
  return r.right;
};

const GAME = { name: 'Dice', slug: 'dice', type: 'originals', provider: { name: 'House' } };
let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

/**
 * Two wallets through the real command side. Alice (BTC, USDT): deposit 1.5, bet 0.5 paid 1, bet 0.2 rolled
 * back, withdrawal 0.3 completed, withdrawal 0.1 rejected (BTC 1.7 at the end); tip 100 and deduction 30.5 USDT
 * (69.5). Bob (ETH): deposit 2, bet 0.5 lost, balance set to 3, prize 0.25 (3.25); an affiliate claim of 2.5 USDC.
 */
export const playScenario = async (ledger: Ledger, users: { alice: number; bob: number }, admin = 9_000): Promise<void> => {
  const { alice, bob } = users;
  const deposit = async (userId: number, currencyId: 'BTC' | 'ETH', amount: string) => {
    const { deposit: d } = await ok(
      ledger.requestDeposit({
        externalId: uid('ext'),
        userId,
        providerId: 'PROVIDER_A',
        networkId: currencyId,
        currencyId,
        amount,
        usdAmount: '1',
      }),
    );
    await ok(ledger.completeDeposit(d.id, { txHash: uid('tx') }));
  };
  const bet = async (userId: number, currencyId: 'BTC' | 'ETH', amount: string) => {
    const id = uid('bet');
    await ok(ledger.placeBet({ id, userId, roundId: uid('round'), gameId: 7, gameIdentity: GAME, currencyId, amount, usdAmount: '1' }));
    return id;
  };
  const withdraw = async (amount: string) =>
    (
      await ok(
        ledger.requestWithdrawal({
          userId: alice,
          currencyId: 'BTC',
          networkId: 'BTC',
          providerId: 'PROVIDER_B',
          amount,
          usdAmount: '1',
          recipientAddress: 'bc1qexample',
        }),
      )
    ).withdrawal.id;

  await deposit(alice, 'BTC', '1.5');
  await ok(ledger.settleBet(await bet(alice, 'BTC', '0.5'), { payout: '1', usdPayout: '2' }));
  await ok(ledger.rollbackBet(await bet(alice, 'BTC', '0.2')));
  const w1 = await withdraw('0.3');
  await ok(ledger.approveWithdrawal(w1, admin));
  await ok(ledger.completeWithdrawal(w1, { txHash: '0xw1' }));
  await ok(ledger.rejectWithdrawal(await withdraw('0.1'), admin, 'kyc missing'));
  await ok(ledger.tip({ recipientUserId: alice, adminUserId: admin, currencyId: 'USDT', amount: '100', notes: 'welcome' }));
  await ok(ledger.deductBalance({ recipientUserId: alice, adminUserId: admin, currencyId: 'USDT', amount: '30.5', notes: 'correction' }));

  await deposit(bob, 'ETH', '2');
  await ok(ledger.settleBet(await bet(bob, 'ETH', '0.5'), { payout: '0', usdPayout: '0' }));
  await ok(ledger.setBalance({ userId: bob, adminUserId: admin, currencyId: 'ETH', balance: '3' }));
  await ok(
    ledger.creditPrize({
      userId: bob,
      adminUserId: admin,
      leaderboardId: 'lb-1',
      leaderboardUserId: uid('lbu'),
      currencyId: 'ETH',
      amount: '0.25',
      usdAmount: '1',
    }),
  );
  await ok(ledger.claimAffiliateCommission({ claimId: uid('claim'), userId: bob, currencyId: 'USDC', amount: '2.5', usdAmount: '2.5' }));
};

/**
 * Waits until readAll can see every event stored so far and returns the last one's position. The store only
 * reads below the oldest running transaction of the whole cluster, so another test file's open transaction can
 * hide fresh events for a moment: a test that reads right after writing must wait for them.
 */
const ISO_OF = (t: string): string => `to_char(${t} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Times under a test's control: event k (in global order) decided, recorded and effective at minute k after `t0`, the
 * three times equal, as they are for every event no caller back-dated.
 */
export const eventsAtMinutes = (pool: pg.Pool, t0: string): Promise<unknown> =>
  pool.query(
    `UPDATE events e SET created_at = r.t, data = e.data || jsonb_build_object('at', ${ISO_OF('r.t')}, 'effectiveAt', ${ISO_OF('r.t')})
    FROM (SELECT global_position,
        $1::timestamptz + (row_number() OVER (ORDER BY transaction_id, global_position) - 1) * interval '1 minute' AS t
      FROM events) r
    WHERE r.global_position = e.global_position`,
    [t0],
  );

export const untilVisible = async (store: EventStore, pool: pg.Pool): Promise<Position> => {
  const { rows } = await pool.query<{ commit: string; prepare: string }>(
    `SELECT transaction_id::text AS commit, global_position::text AS prepare
       FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  const last = rows[0] ? { commit: BigInt(rows[0].commit), prepare: BigInt(rows[0].prepare) } : START;
  await eventuallyTrue('events to become visible (a transaction held open somewhere?)', async () => {
    return comparePositions(await store.headPosition(), last) >= 0;
  });
  return last;
};

/** Runs every projection until it has applied everything appended so far, then stops it. */
export const projectAll = async (store: EventStore, pool: pg.Pool): Promise<void> => {
  const last = await untilVisible(store, pool);
  const projector = startProjector({ store, pool, projections: allProjections, batchSize: 50 });
  try {
    await projector.waitFor(last);
  } finally {
    await projector.stop();
  }
};

export type CliRun = Readonly<{ code: number | null; stdout: string; stderr: string }>;

/** `tsx scripts/ledger.ts <args>` as a child process on a test schema. */
export const runLedgerScript = (args: readonly string[], env: Record<string, string>): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/ledger.ts', ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
