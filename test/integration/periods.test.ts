import fc from 'fast-check';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { toMinor, fromMinor, type DecimalString } from '../../src/domain/money/money.js';
import { hasMovement, type WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { START, comparePositions, type Position } from '../../src/infra/event-store/event-store.port.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { createPeriods, type Periods } from '../../src/periods/close-period.use-case.js';
import { PERIODS_STREAM } from '../../src/periods/periods.events.js';
import { closingBalances, ensureCalendar } from '../../src/periods/periods.queries.js';
import { closeDigest, closeMacMatches } from '../../src/periods/periods.seal.js';
import { verifyPeriods } from '../../src/audit/verify.periods.js';
import { verifyOpenPeriod } from '../../src/audit/verify.open-period.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';
import { must as right } from '../support/realtime-ledger.js';
import { runLedgerScript } from '../support/audit-ledger.js';
import { withStoreOverrides } from '../support/store-overrides.js';
import { TEST_DATABASE_URL } from '../support/db.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const KEY = Buffer.alloc(32, 3);

/**
 * The ledger's clock is the test's: commands are decided "at" it, with no business time of their own, so each
 * event's business time is the clock's time; a late item is a command decided after its period was closed.
 */
describe('periods: the books close in order, once, with a sealed report equal to a fold of the events', () => {
  let env: LedgerEnv;
  let now = new Date('2026-01-10T12:00:00Z');
  const clock = () => now;
  let ledger: ReturnType<typeof createLedger>;
  let periods: Periods;
  let projector: Projector;
  beforeAll(async () => {
    env = await createLedgerEnv('periods');
    await ensureCalendar(env.pool, { timeZone: 'Europe/Malta', unit: 'month' });
    ledger = createLedger({ store: env.store, pool: env.pool, clock });
    periods = createPeriods({
      store: env.store,
      pool: env.pool,
      clock,
      calendar: { timeZone: 'Europe/Malta', unit: 'month' },
      sealKey: KEY,
      snapshotWallet: (userId) => ledger.internals.handler.snapshot(userId),
    });
    projector = startProjector({ store: env.store, pool: env.pool, projections: allProjections });
  });
  afterAll(async () => {
    await projector?.stop();
    await env.close();
  });

  const bet = (userId: number, id: string, amount: string) =>
    ledger.placeBet({ id, userId, roundId: `r-${id}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount });

  /** Every wallet event before `position`, folded: balances per account and currency, and the open bets' stakes. */
  const foldUntil = async (position: string) => {
    const [commit, prepare] = position.split('/').map(BigInt) as [bigint, bigint];
    const until: Position = { commit, prepare };
    const balances = new Map<string, bigint>();
    const open = new Map<string, { currencyId: string; amount: bigint }>();
    for (let after: Position = START; ;) {
      const batch = await env.store.readAll({ after, maxCount: 1000 });
      if (batch.length === 0) break;
      for (const e of batch) {
        if (comparePositions(e.position, until) >= 0 || !e.streamId.startsWith('wallet-')) continue;
        const event = { type: e.type, data: e.data } as WalletEvent;
        if (event.type === 'BetPlaced')
          open.set(event.data.betId, { currencyId: event.data.currencyId, amount: toMinor(event.data.currencyId, event.data.amount) });
        if (event.type === 'BetSettled' || event.type === 'BetRolledBack' || event.type === 'BetErrored') open.delete(event.data.betId);
        if (!hasMovement(event)) continue;
        for (const p of event.data.postings) {
          const k = `${p.account}|${p.currencyId}`;
          balances.set(k, (balances.get(k) ?? 0n) + toMinor(p.currencyId, p.amount));
        }
      }
      after = batch.at(-1)!.position;
    }
    return { balances, open };
  };

  /** The report and closing balances against the fold of every event before the close. */
  const expectReportIsTheFold = async (period: string) => {
    const closed = right(await periods.close(period, 1));
    const report = closed.report as {
      position: string;
      trialBalance: { currencyId: string; total: string }[];
      liability: { currencyId: string; playerBalances: string; withdrawalsHeld: string; openBetStakes: string; total: string }[];
    };
    const { balances: stored } = await closingBalances(env.pool, period);
    const { balances, open } = await foldUntil(report.position);
    const folded = [...balances].filter(([, v]) => v !== 0n).map(([k, v]) => [k, v] as const);
    const minor = (b: { balance: string }) => toMinor('USDT', b.balance as DecimalString);
    const reported = stored.filter((b) => minor(b) !== 0n).map((b) => [`${b.account}|${b.currencyId}`, minor(b)] as const);
    expect(new Map(reported)).toEqual(new Map(folded));
    for (const t of report.trialBalance) expect(t.total).toBe('0');
    const players = [...balances].filter(([k]) => k.startsWith('user:')).reduce((s, [, v]) => s + v, 0n);
    const held = balances.get('house:withdrawals-held|USDT') ?? 0n;
    const stakes = [...open.values()].reduce((s, b) => s + b.amount, 0n);
    const usdt = report.liability.find((l) => l.currencyId === 'USDT') ?? {
      playerBalances: '0',
      withdrawalsHeld: '0',
      openBetStakes: '0',
      total: '0',
    };
    expect([usdt.playerBalances, usdt.withdrawalsHeld, usdt.openBetStakes, usdt.total]).toEqual(
      [players, held, stakes, players + held + stakes].map((m) => fromMinor('USDT', m)),
    );
    expect(closed.sealed).toBe(true);
    expect(
      closeMacMatches(
        KEY,
        period,
        closeDigest(closed.report, stored),
        (await env.pool.query('SELECT mac FROM period_closes WHERE period = $1', [period])).rows[0].mac,
      ),
    ).toBe(true);
    return closed;
  };

  it('when the month ends, then it closes once, in order, and a late item for it is booked in the open month', async () => {
    const u = 7001;
    await fundWallet(ledger, u, '100');
    right(await bet(u, 'p-1', '10'));
    right(await ledger.settleBet('p-1', { payout: '25' }));
    right(await bet(u, 'p-2', '5')); // stays open over the close
    const w = right(
      await ledger.requestWithdrawal({
        userId: u,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount: '7',
        recipientAddress: '0x1',
      }),
    );

    const early = await periods.close('2026-01', 1);
    expect(isLeft(early) && early.left).toMatchObject({ _tag: 'PeriodNotEnded', period: '2026-01', end: '2026-01-31T23:00:00.000Z' });
    now = new Date('2026-02-01T09:00:00Z');
    const skipping = await periods.close('2026-02', 1);
    expect(isLeft(skipping) && skipping.left).toMatchObject({ _tag: 'PeriodNotNext', next: '2026-01' });

    const closed = await expectReportIsTheFold('2026-01');
    expect(closed.report).toMatchObject({ period: '2026-01', previous: null, timeZone: 'Europe/Malta', start: '2025-12-31T23:00:00.000Z' });
    const again = await periods.close('2026-01', 1);
    expect(isLeft(again) && again.left._tag).toBe('PeriodAlreadyClosed');

    // The open bet settles in February, but a provider's step dated January arrives now: booked in February, late.
    right(await ledger.settleBet('p-2', { payout: '0' }));
    right(await ledger.approveWithdrawal(w.withdrawal.id, 1));
    right(await ledger.completeWithdrawal(w.withdrawal.id, { txHash: '0xabc' }));
    // A deposit whose business time (when the provider confirmed it) is in January, recorded after January closed: its
    // commands are decided at a January time, as a provider's dated confirmation would be; booked in February, late.
    now = new Date('2026-01-31T12:00:00Z');
    const dep = right(
      await ledger.requestDeposit({
        externalId: 'late-1',
        userId: u,
        providerId: 'TEST',
        networkId: 'ETH',
        currencyId: 'USDT',
        amount: '3',
      }),
    );
    right(await ledger.completeDeposit(dep.deposit.id, {}));
    now = new Date('2026-03-01T00:30:00Z');
    const feb = await expectReportIsTheFold('2026-02');
    const late = (feb.report as { lateItems: { type: string; businessPeriod: string }[] }).lateItems;
    expect(late.map((l) => [l.type, l.businessPeriod])).toEqual([['DepositCompleted', '2026-01']]);
    const janBalances = await closingBalances(env.pool, '2026-01');
    expect(janBalances.balances.find((b) => b.account === `user:${u}`)?.balance).toBe('103'); // 100 - 10 + 25 - 5 - 7, untouched since
  });

  it('when two closes of the next period race, then exactly one is recorded and the other is told it is closed', async () => {
    now = new Date('2026-04-02T00:00:00Z');
    const results = await Promise.all([periods.close('2026-03', 1), periods.close('2026-03', 2), periods.close('2026-03', 3)]);
    expect(results.filter(isRight)).toHaveLength(1);
    expect(results.filter(isLeft).map((r) => isLeft(r) && r.left._tag)).toEqual(['PeriodAlreadyClosed', 'PeriodAlreadyClosed']);
    expect((await env.store.readStream(PERIODS_STREAM)).map((e) => e.data.periodId)).toEqual(['2026-01', '2026-02', '2026-03']);
  });

  it('when random commands, retries and closes interleave, then every closing report equals the fold of the events before it', async () => {
    const users = [7101, 7102, 7103];
    for (const u of users) await fundWallet(ledger, u, '1000');
    let month = 4; // months since December 2025: April 2026 is the next to close
    const label = (m: number) => `${2026 + Math.floor((m - 1) / 12)}-${String(((m - 1) % 12) + 1).padStart(2, '0')}`;
    let n = 0;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('bet' as const), user: fc.constantFrom(...users), amount: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constant('settle' as const), payout: fc.integer({ min: 0, max: 60 }) }),
      fc.record({ kind: fc.constant('retry' as const) }),
      fc.record({ kind: fc.constant('tip' as const), user: fc.constantFrom(...users), amount: fc.integer({ min: 1, max: 9 }) }),
      fc.record({ kind: fc.constant('close' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
        const placed: { id: string; user: number; amount: number }[] = [];
        for (const s of steps) {
          n += 1;
          now = new Date(Date.UTC(2026, month - 1, 2, 0, 0, n % 3600));
          if (s.kind === 'bet') {
            const id = `prop-${n}`;
            if (isRight(await bet(s.user, id, String(s.amount)))) placed.push({ id, user: s.user, amount: s.amount });
          } else if (s.kind === 'settle' && placed.length > 0) {
            right(await ledger.settleBet(placed.shift()!.id, { payout: String(s.payout) }));
          } else if (s.kind === 'retry' && placed.length > 0) {
            const again = right(await bet(placed[0]!.user, placed[0]!.id, String(placed[0]!.amount)));
            expect(again.created).toBe(false);
          } else if (s.kind === 'tip') {
            right(await ledger.tip({ recipientUserId: s.user, adminUserId: 1, currencyId: 'USDT', amount: String(s.amount), notes: 'p' }));
          } else if (s.kind === 'close') {
            const period = label(month);
            month += 1;
            now = new Date(Date.UTC(2026, month - 1, 1, 12));
            await expectReportIsTheFold(period);
          }
        }
      }),
      { numRuns: 4 },
    );
  });

  it('when the ledger tool lists the periods, reads a report and is asked to close a closed period, then it answers from the same records', async () => {
    const cli = (args: string[]) =>
      runLedgerScript([...args, '--schema', env.db.schema], { DATABASE_URL: TEST_DATABASE_URL, LEDGER_SEAL_KEY: KEY.toString('base64') });
    const list = await cli(['periods']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/calendar: months in Europe\/Malta; next to close: 2026-04|calendar: months in Europe\/Malta/);
    expect(list.stdout).toMatch(/^2026-01 {2}closed at .* {2}sealed {2}sha256 [0-9a-f]{64}$/m);
    const report = await cli(['report', '--period', '2026-01']);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('trial balance: 0 USDT');
    expect(report.stdout).toMatch(/^user:7001\tUSDT\t103$/m);
    const again = await cli(['close', '--period', '2026-01', '--admin', '1']);
    expect([again.code, again.stderr.trim()]).toEqual([1, 'period 2026-01 is closed already; a closed period never reopens']);
  });

  it('when verify re-derives the closed periods, then each is right and read once; an edited balance, report or event of a closed period fails it', async () => {
    let reads = 0;
    const counting = withStoreOverrides(env.store, {
      readAll: (...args) => {
        reads += 1;
        return env.store.readAll(...args);
      },
    });
    expect(await verifyPeriods({ pool: env.pool, store: counting, key: KEY })).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    reads = 0;
    expect(await verifyPeriods({ pool: env.pool, store: counting, key: KEY })).toEqual([]);
    expect(reads).toBe(0); // every closed period was checked already: nothing is read again

    // The open period: only the events after the last close are folded, from its closing balances on.
    now = new Date();
    right(await bet(7101, 'open-1', '2'));
    const open = await verifyOpenPeriod({ pool: env.pool, store: counting, key: KEY });
    expect(open.differences).toEqual([]);
    const total = Number((await env.pool.query(`SELECT count(*) AS n FROM events`)).rows[0].n);
    expect(open.since).toBeTruthy();
    expect(open.events).toBeGreaterThan(0);
    expect(open.events).toBeLessThan(total / 2);

    const edit = async (sql: string, params: unknown[], expected: RegExp) => {
      const client = await env.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(sql, params);
        const found = await verifyPeriods({ pool: client as unknown as typeof env.pool, store: env.store, key: KEY });
        expect(found.map((d) => `${d.where}: ${d.detail}`).join('\n')).toMatch(expected);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    };
    await edit(
      `UPDATE period_balances SET balance = balance + 1 WHERE period = '2026-02' AND account LIKE 'user:%'`,
      [],
      /period 2026-02: the report or a closing balance was edited/,
    );
    await edit(
      `UPDATE period_closes SET report = jsonb_set(report, '{accounts}', '999') WHERE period = '2026-01'`,
      [],
      /period 2026-01: the report or a closing balance was edited/,
    );
    await edit(`DELETE FROM period_checks`, [], /^$/); // no checks: everything is re-derived, and found right
    // An event of a closed period edited in the store (committed: verify reads events through the store's own pool).
    await env.pool.query('DELETE FROM period_checks');
    await env.pool.query(
      `UPDATE events SET data = jsonb_set(data, '{postings,0,amount}', '"-26"') WHERE stream_id = 'wallet-7001' AND type = 'BetSettled' AND data->>'betId' = 'p-1'`,
    );
    const found = await verifyPeriods({ pool: env.pool, store: env.store, key: KEY });
    expect(found.map((d) => `${d.where}: ${d.detail}`).join('\n')).toMatch(
      /period 2026-01: closing balance of house:payouts USDT: -25, the events give -26/,
    );
  });

  it('when the calendar changes after a close, then it is refused, naming both', async () => {
    await expect(ensureCalendar(env.pool, { timeZone: 'UTC', unit: 'month' })).rejects.toThrow(/Europe\/Malta\/month/);
  });
});
