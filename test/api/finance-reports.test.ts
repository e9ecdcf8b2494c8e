import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMinor as minorOf, fromMinor, type DecimalString } from '../../src/domain/money/money.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import type { Projector } from '../../src/projections/index.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { signedInAdmin } from '../support/money-env.js';
import { must } from '../support/realtime-ledger.js';
import { eventuallyTrue } from '../support/eventually.js';
import { runLedgerScript } from '../support/audit-ledger.js';
import { TEST_DATABASE_URL } from '../support/db.js';

/**
 * A month of random activity through the ledger (its clock is the test's), closed over HTTP, then every finance report
 * checked against what the test itself kept: GGR per game and currency, the liability, a zero trial balance, statements
 * that chain from one period to the next, CSV equal to JSON, and a closed period's reports equal to its sealed close.
 */
let env: AuthEnv;
let projector: Projector;
let finance: Awaited<ReturnType<typeof signedInAdmin>>;
let superadmin: Awaited<ReturnType<typeof signedInAdmin>>;

const real = new Date();
const monthStart = (offset: number): Date => new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + offset, 1));
const lastMonth = monthStart(-1).toISOString().slice(0, 7);
const thisMonth = monthStart(0).toISOString().slice(0, 7);
let now = new Date(monthStart(-1).getTime() + 3_600_000);

/** A seeded generator: the same activity on every run (mulberry32). */
const random = (() => {
  let a = 20261129;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
/** Minor units of a decimal the API answered. */
const toMinor = (c: string, v: string): bigint => minorOf(c as CurrencyId, v as DecimalString);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const GAMES = [
  { gameId: 11, gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } } },
  { gameId: 12, gameIdentity: { name: 'Crash', slug: 'crash', type: 'ORIGINALS', provider: { name: 'house' } } },
  { gameId: 21, gameIdentity: { name: 'Book of Ra', slug: 'book-of-ra', type: 'SLOTS', provider: { name: 'Novomatic' } } },
];
const CURRENCIES: readonly CurrencyId[] = ['BTC', 'USDT'];

beforeAll(async () => {
  env = await createAuthEnv('finance_reports', {}, { clock: () => now });
  projector = env.startProjector();
  finance = await signedInAdmin(env, ['balance.view', 'transaction.view', 'deposits.view', 'admin-tips.view', 'user.transactions.view']);
  superadmin = await signedInAdmin(env, [], true);
});
afterAll(async () => {
  await projector?.stop();
  await env?.close();
});

type Expected = {
  ggr: Map<string, bigint>; // `${gameId}|${currency}`
  openStakes: Map<string, bigint>;
  held: Map<string, bigint>;
};

/** Random activity for `users` over the clock's month, keeping what the reports must say. */
const playMonth = async (users: number[], adminId: number, steps: number, expected: Expected): Promise<void> => {
  const add = (m: Map<string, bigint>, k: string, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);
  const end = monthStart(0).getTime() - 3_600_000;
  const tick = (end - now.getTime()) / (steps + 1);
  let n = 0;
  for (let i = 0; i < steps; i++) {
    now = new Date(now.getTime() + Math.floor(tick * (0.5 + random())));
    const userId = pick(users);
    const currencyId = pick(CURRENCIES);
    const id = `${currencyId}-${userId}-${i}-${++n}`;
    const kind = random();
    if (kind < 0.2) {
      const dep = must(
        await env.ledger.requestDeposit({
          externalId: id,
          userId,
          providerId: pick(['TEST', 'COINPAY']),
          networkId: currencyId,
          currencyId,
          amount: currencyId === 'BTC' ? '0.5' : '500',
          usdAmount: currencyId === 'BTC' ? '30000' : '500',
        }),
      );
      const fate = random();
      if (fate < 0.7) must(await env.ledger.completeDeposit(dep.deposit.id, { txHash: `tx-${id}` }));
      else if (fate < 0.8) must(await env.ledger.confirmDeposit(dep.deposit.id, { txHash: `tx-${id}` }));
      else if (fate < 0.9) must(await env.ledger.failDeposit(dep.deposit.id, { reason: 'expired' }));
    } else if (kind < 0.75) {
      const balance = (await env.ledger.balances(userId)).find((b) => b.currencyId === currencyId);
      const available = toMinor(currencyId, balance?.balance ?? '0');
      const stake = available / 10n;
      if (stake === 0n) continue;
      const game = pick(GAMES);
      const amount = fromMinor(currencyId, stake);
      const placed = await env.ledger.placeBet({ id, userId, roundId: `r-${id}`, ...game, currencyId, amount, usdAmount: '1' });
      if (placed._tag === 'Left') continue;
      const key = `${game.gameId}|${currencyId}`;
      add(expected.ggr, key, stake);
      const fate = random();
      if (fate < 0.6) {
        const payout = pick([0n, stake * 2n, stake / 2n, stake * 3n]);
        must(await env.ledger.settleBet(id, { payout: fromMinor(currencyId, payout), usdPayout: '0' }));
        add(expected.ggr, key, -payout);
      } else if (fate < 0.75) {
        must(await env.ledger.rollbackBet(id));
        add(expected.ggr, key, -stake);
      } else if (fate < 0.85) {
        must(await env.ledger.errorBet(id, { errorDetails: 'game failed' }));
        add(expected.ggr, key, -stake);
      } else add(expected.openStakes, currencyId, stake);
    } else if (kind < 0.85) {
      const balance = (await env.ledger.balances(userId)).find((b) => b.currencyId === currencyId);
      const amount = toMinor(currencyId, balance?.balance ?? '0') / 5n;
      if (amount === 0n) continue;
      const w = await env.ledger.requestWithdrawal({
        userId,
        currencyId,
        networkId: currencyId,
        providerId: 'TEST',
        amount: fromMinor(currencyId, amount),
        recipientAddress: `addr-${userId}`,
      });
      if (w._tag === 'Left') continue;
      const wid = w.right.withdrawal.id;
      const fate = random();
      if (fate < 0.3) {
        must(await env.ledger.approveWithdrawal(wid, adminId));
        must(await env.ledger.completeWithdrawal(wid, { txHash: `wtx-${id}` }));
      } else if (fate < 0.5) must(await env.ledger.rejectWithdrawal(wid, adminId, 'risk'));
      else if (fate < 0.65) {
        must(await env.ledger.approveWithdrawal(wid, adminId));
        must(await env.ledger.failWithdrawal(wid, { failedReason: 'node down' }));
        add(expected.held, currencyId, amount);
      } else if (fate < 0.8) {
        must(await env.ledger.approveWithdrawal(wid, adminId));
        must(await env.ledger.failWithdrawal(wid, { failedReason: 'node down' }));
        must(await env.ledger.retryWithdrawal(wid, adminId));
        add(expected.held, currencyId, amount);
      } else add(expected.held, currencyId, amount);
    } else {
      const amount = currencyId === 'BTC' ? '0.001' : '5';
      const which = random();
      if (which < 0.5)
        must(
          await env.ledger.tip({
            recipientUserId: userId,
            adminUserId: adminId,
            currencyId,
            amount,
            tag: pick(['LOSSBACK', 'SALARY', null]),
            notes: 'goodwill',
          }),
        );
      else if (which < 0.7) {
        const r = await env.ledger.deductBalance({
          recipientUserId: userId,
          adminUserId: adminId,
          currencyId,
          amount,
          tag: 'TESTING',
          notes: 'correction',
        });
        void r; // refused when the balance is short: nothing to count
      } else
        must(
          await env.ledger.creditPrize({
            userId,
            adminUserId: adminId,
            leaderboardId: 'lb-1',
            leaderboardUserId: `lbu-${id}`,
            currencyId,
            amount,
            usdAmount: '1',
          }),
        );
    }
  }
};

const csvRows = (csv: string): string[][] =>
  csv
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
const asCsvCells = (columns: string[], rows: Record<string, unknown>[]): string[][] => [
  columns,
  ...rows.map((r) => columns.map((c) => (r[c] === null ? '' : String(r[c])))),
];

describe('finance reports over a closed month of random activity', () => {
  const expected: Expected = { ggr: new Map(), openStakes: new Map(), held: new Map() };
  const users: number[] = [];

  it('when a month of activity is closed, then GGR, liability, trial balance, statements and CSVs agree with the ledger', async () => {
    for (let i = 0; i < 6; i++) users.push((await env.makeUser()).id);
    for (const userId of users)
      for (const currencyId of CURRENCIES) {
        const dep = must(
          await env.ledger.requestDeposit({
            externalId: `seed-${userId}-${currencyId}`,
            userId,
            providerId: 'TEST',
            networkId: currencyId,
            currencyId,
            amount: currencyId === 'BTC' ? '2' : '2000',
            usdAmount: currencyId === 'BTC' ? '120000' : '2000',
          }),
        );
        must(await env.ledger.completeDeposit(dep.deposit.id, { txHash: `seed-${userId}-${currencyId}` }));
      }
    await playMonth(users, superadmin.id, 220, expected);
    const balancesAtClose = new Map<number, Map<string, string>>();
    for (const u of users) balancesAtClose.set(u, new Map((await env.ledger.balances(u)).map((b) => [b.currencyId, b.balance])));

    const closed = await superadmin.as('POST', `/ledger/periods/${lastMonth}/close`);
    expect(closed.status).toBe(201);
    const sealed = closed.body.report;

    // GGR per game and currency: stakes - payouts, net of rollbacks and errors.
    const games = await finance.as('GET', `/finance/reports/gaming?period=${lastMonth}&groupBy=game`);
    expect(games.status, JSON.stringify(games.body)).toBe(200);
    expect(games.body.scope).toMatchObject({ kind: 'period', period: lastMonth, closed: true, timeZone: 'UTC', axis: 'business time' });
    const reported = new Map<string, bigint>(
      games.body.rows.map((r: Record<string, string>) => {
        const gameId = /\(#(\d+)\)$/.exec(r.game!)![1];
        return [`${gameId}|${r.currencyId}`, toMinor(r.currencyId as CurrencyId, r.ggr!)];
      }),
    );
    expect(reported).toEqual(expected.ggr);
    for (const r of games.body.rows)
      expect(toMinor(r.currencyId, r.ggr)).toBe(
        toMinor(r.currencyId, r.stakes) - toMinor(r.currencyId, r.payouts) - toMinor(r.currencyId, r.refunds),
      );

    // The totals' GGR equals what the sealed close says the players lost to the games.
    const betKinds = new Set(['BetPlaced', 'BetSettled', 'BetRolledBack', 'BetErrored']);
    for (const t of games.body.totals) {
      const players = sealed.movements
        .filter((m: { kind: string; currencyId: string }) => betKinds.has(m.kind) && m.currencyId === t.currencyId)
        .reduce((s: bigint, m: { players: string }) => s + toMinor(t.currencyId, m.players), 0n);
      expect(toMinor(t.currencyId, t.ggr)).toBe(-players);
    }

    // The liability: player closing balances + withdrawals held + open stakes, equal to the sealed close's.
    const liability = await finance.as('GET', `/finance/reports/liability?period=${lastMonth}`);
    expect(liability.body.source).toBe('sealed close');
    for (const row of liability.body.rows) {
      const c = row.currencyId as CurrencyId;
      const players = users.reduce((s, u) => s + toMinor(c, balancesAtClose.get(u)!.get(c) ?? '0'), 0n);
      expect(toMinor(c, row.playerBalances)).toBe(players);
      expect(toMinor(c, row.withdrawalsHeld)).toBe(expected.held.get(c) ?? 0n);
      expect(toMinor(c, row.openBetStakes)).toBe(expected.openStakes.get(c) ?? 0n);
      expect(toMinor(c, row.total)).toBe(players + (expected.held.get(c) ?? 0n) + (expected.openStakes.get(c) ?? 0n));
      expect(row.usdRate).not.toBeNull();
    }
    expect(
      liability.body.rows.map((r: Record<string, unknown>) => ({
        currencyId: r.currencyId,
        playerBalances: r.playerBalances,
        withdrawalsHeld: r.withdrawalsHeld,
        openBetStakes: r.openBetStakes,
        total: r.total,
      })),
    ).toEqual(sealed.liability);

    // The trial balance: zero per currency, its totals the sealed ones, its rows summing to them.
    const trial = await finance.as('GET', `/finance/reports/trial-balance?period=${lastMonth}`);
    expect(trial.body.totals).toEqual(sealed.trialBalance);
    for (const t of trial.body.totals) expect(t.total).toBe('0');
    for (const c of CURRENCIES) {
      const sum = trial.body.rows
        .filter((r: { currencyId: string }) => r.currencyId === c)
        .reduce((s: bigint, r: { balance: string }) => s + toMinor(c, r.balance), 0n);
      expect(sum).toBe(0n);
    }

    // Activity goes on in the open month; each statement's closing balance is the next period's opening.
    now = new Date(Math.min(Date.now(), monthStart(0).getTime() + 86_400_000));
    for (const u of users)
      must(
        await env.ledger.tip({
          recipientUserId: u,
          adminUserId: superadmin.id,
          currencyId: 'USDT',
          amount: '1',
          tag: 'OTHER',
          notes: 'next month',
        }),
      );
    await eventuallyTrue('the open month in the statement', async () => {
      const s = await finance.as('GET', `/finance/players/${users[0]}/statement?period=${thisMonth}`);
      return s.body.rows?.some((r: { line: string }) => r.line === 'MOVEMENT') ?? false;
    });
    for (const u of users) {
      const last = await finance.as('GET', `/finance/players/${u}/statement?period=${lastMonth}`);
      const next = await finance.as('GET', `/finance/players/${u}/statement?period=${thisMonth}`);
      expect(last.status).toBe(200);
      const closing = last.body.rows.filter((r: { line: string }) => r.line === 'CLOSING');
      const opening = next.body.rows.filter((r: { line: string }) => r.line === 'OPENING');
      expect(opening.map((r: Record<string, string>) => [r.currencyId, r.balance])).toEqual(
        closing.map((r: Record<string, string>) => [r.currencyId, r.balance]),
      );
      for (const r of closing)
        expect(toMinor(r.currencyId, r.balance)).toBe(toMinor(r.currencyId, balancesAtClose.get(u)!.get(r.currencyId) ?? '0'));
      // Within a statement, every movement's balance is the previous one plus its amount.
      for (const c of CURRENCIES) {
        const lines = last.body.rows.filter((r: { currencyId: string }) => r.currencyId === c);
        let running = toMinor(c, lines[0]?.balance ?? '0');
        for (const l of lines.filter((r: { line: string }) => r.line === 'MOVEMENT')) {
          running += toMinor(c, l.amount);
          expect(toMinor(c, l.balance)).toBe(running);
        }
      }
    }

    // Every report's CSV holds the JSON's rows, and the JSON states the CSV's SHA-256 beforehand.
    const reports = [
      `/finance/reports/trial-balance?period=${lastMonth}`,
      `/finance/reports/liability?period=${lastMonth}`,
      `/finance/reports/liability?period=${thisMonth}`,
      `/finance/reports/gaming?period=${lastMonth}`,
      `/finance/reports/gaming?from=${lastMonth}-01&to=${lastMonth}-28&groupBy=provider`,
      `/finance/reports/payments?period=${lastMonth}`,
      `/finance/reports/payments?period=${lastMonth}&groupBy=provider`,
      `/finance/reports/adjustments?period=${lastMonth}`,
      `/finance/players/${users[0]}/statement?period=${lastMonth}`,
    ];
    for (const path of reports) {
      const json = await finance.as('GET', path);
      expect(json.status, path).toBe(200);
      expect(json.body.rows.length, path).toBeGreaterThan(0);
      const csv = await finance.as('GET', `${path}&format=csv`);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csvRows(String(csv.body))).toEqual(asCsvCells(json.body.columns, json.body.rows));
      expect(csv.headers.get('x-report-sha256')).toBe(json.body.csv.sha256);
    }

    // The CLI answers the same CSV as the route, its SHA-256 on stderr.
    const cli = await runLedgerScript(
      ['finance', '--report', 'gaming', '--period', lastMonth, '--group-by', 'game', '--schema', env.db.schema],
      { DATABASE_URL: TEST_DATABASE_URL },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const routeCsv = await finance.as('GET', `/finance/reports/gaming?period=${lastMonth}&groupBy=game&format=csv`);
    expect(`${cli.stdout.trimEnd()}\r\n`).toBe(String(routeCsv.body));
    expect(cli.stderr).toContain(`sha256 ${routeCsv.headers.get('x-report-sha256')}`);
    const wrong = await runLedgerScript(
      ['finance', '--report', 'liability', '--from', '2026-01-01', '--to', '2026-01-02', '--schema', env.db.schema],
      { DATABASE_URL: TEST_DATABASE_URL },
    );
    expect([wrong.code, wrong.stderr.trim()]).toEqual([2, '--period liability is read at the end of a period']);
  });

  it('when a report is asked with a bad scope or without its permission, then 400 naming the field, or 403', async () => {
    const both = await finance.as('GET', `/finance/reports/gaming?period=${lastMonth}&from=2026-01-01&to=2026-01-02`);
    expect([both.status, both.body.details?.[0]?.field]).toEqual([400, 'query.period']);
    const backwards = await finance.as('GET', '/finance/reports/payments?from=2026-02-02&to=2026-02-01');
    expect([backwards.status, backwards.body.details?.[0]?.field]).toEqual([400, 'query.to']);
    const badMonth = await finance.as('GET', '/finance/reports/trial-balance?period=2026-13');
    expect([badMonth.status, badMonth.body.details?.[0]?.field]).toEqual([400, 'query.period']);
    const nobody = await finance.as('GET', '/finance/players/999999999/statement?period=2026-01');
    expect([nobody.status, nobody.body.code]).toEqual([404, 'USER_NOT_FOUND']);
    const viewer = await signedInAdmin(env, ['deposits.view']);
    expect((await viewer.as('GET', `/finance/reports/trial-balance?period=${lastMonth}`)).status).toBe(403);
    expect((await viewer.as('GET', `/finance/reports/payments?period=${lastMonth}`)).status).toBe(200);
  });
});
