import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '../../src/domain/user/permissions.js';
import { createReconciliations } from '../../src/finance/reconciliation/reconciliation.use-case.js';
import { parseTolerances } from '../../src/finance/reconciliation/tolerances.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import type { Projector } from '../../src/projections/index.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { eventuallyTrue } from '../support/eventually.js';
import { fundedUser } from '../support/money-env.js';

let env: AuthEnv;
let projector: Projector;
let adminUrl: string;
let close: () => Promise<void>;
let manager: Admin;
let viewer: Admin;
let outsider: Admin;
const HEADER = 'Transaction ID,Type,Merchant Reference,Tx Hash,Currency,Amount,Status,Date';

type Admin = Readonly<{ id: number; token: string }>;
const admin = async (permissions: Permission[]): Promise<Admin> => {
  const user = await env.makeUser({ roles: ['User', 'Admin'], permissions });
  return { id: user.id, token: (await signIn(env, user)).accessToken };
};
const as = (who: Admin, method: string, path: string, body?: unknown) =>
  call(adminUrl, method, path, { headers: bearer(who.token), ...(body === undefined ? {} : { body }) });

/** POSTs a statement as the console does: the file as a text/csv body, provider and range in the query. */
const upload = async (who: Admin, csv: string, range: Range, provider = 'TEST') => {
  const q = new URLSearchParams({ provider, from: range.from, to: range.to, fileName: 'statement.csv' });
  const res = await fetch(`${adminUrl}/finance/reconciliations?${q}`, {
    method: 'POST',
    headers: { ...bearer(who.token), 'content-type': 'text/csv' },
    body: csv,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
};

type Range = Readonly<{ from: string; to: string }>;
/** Each test's own window of business time: what earlier tests booked lies before it. */
const window = async <T>(seed: () => Promise<T>): Promise<{ range: Range; seeded: T }> => {
  const from = new Date(Date.now() - 1).toISOString();
  const seeded = await seed();
  return { range: { from, to: new Date(Date.now() + 60_000).toISOString() }, seeded };
};

let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;
const ok = async <T>(r: Promise<{ _tag: 'Left'; left: unknown } | { _tag: 'Right'; right: T }>): Promise<T> => {
  const v = await r;
  if (v._tag === 'Left') throw new Error(JSON.stringify(v.left));
  return v.right;
};

/** A TEST deposit through the ledger, brought into `status`; its external id and id. */
const deposit = async (amount: string, status: 'COMPLETE' | 'PENDING', currencyId: 'BTC' | 'USDT' = 'BTC', effectiveAt?: string) => {
  const user = await env.makeUser();
  const externalId = uid('dep');
  const { deposit: d } = await ok(
    env.ledger.requestDeposit({ externalId, userId: user.id, providerId: 'TEST', networkId: currencyId, currencyId, amount, effectiveAt }),
  );
  if (status === 'COMPLETE') await ok(env.ledger.completeDeposit(d.id, { txHash: uid('0x') }));
  return { id: d.id, externalId, status };
};
/** A TEST withdrawal of `amount` BTC, approved and paid out under `txHash`. */
const paidWithdrawal = async (amount: string, txHash: string) => {
  const user = await fundedUser(env, '10');
  const { withdrawal } = await ok(
    env.ledger.requestWithdrawal({
      userId: user.id,
      currencyId: 'BTC',
      networkId: 'BTC',
      providerId: 'TEST',
      amount,
      recipientAddress: 'bc1qexample',
    }),
  );
  await ok(env.ledger.approveWithdrawal(withdrawal.id, manager.id));
  await ok(env.ledger.completeWithdrawal(withdrawal.id, { txHash }));
  return { id: withdrawal.id, status: 'COMPLETE' };
};
const projected = (items: readonly { id: string; status: string }[]) =>
  eventuallyTrue('the deposits and withdrawals read models', async () => {
    const { rows } = await env.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT id, status FROM deposits UNION ALL SELECT id, status FROM withdrawals) x
       WHERE (id, status) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [items.map((i) => i.id), items.map((i) => i.status)],
    );
    return rows[0]!.n === items.length;
  });
const count = async (table: string): Promise<number> =>
  (await env.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
const AT = '2026-10-03T09:15:00Z';
const csv = (...lines: string[]) => `${[HEADER, ...lines].join('\r\n')}\r\n`;

beforeAll(async () => {
  env = await createAuthEnv('reconciliation_api');
  projector = env.startProjector();
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    auth: env.kit,
    accessRegistry: [],
    reconciliations: createReconciliations({ pool: env.pool, tolerances: parseTolerances('BTC=0.00000100') }),
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
  manager = await admin(['reconciliation.view', 'reconciliation.manage']);
  viewer = await admin(['reconciliation.view']);
  outsider = await admin(['deposits.view', 'withdrawals.view']);
});
afterAll(async () => {
  await close?.();
  await projector?.stop();
  await env?.close();
});

describe('POST /finance/reconciliations: a statement against the ledger', () => {
  it('when a statement holds every kind of break, a batched payout and tolerance edges, then the run lists each with totals per currency', async () => {
    const { range, seeded } = await window(async () => ({
      matched: await deposit('0.5', 'COMPLETE'),
      over: await deposit('1', 'COMPLETE'),
      atTolerance: await deposit('0.2', 'COMPLETE'),
      pending: await deposit('10', 'PENDING', 'USDT'),
      unlisted: await deposit('0.3', 'COMPLETE'),
      w1: await paidWithdrawal('0.1', 'batch-1'),
      w2: await paidWithdrawal('0.2', 'batch-1'),
    }));
    const s = seeded;
    await projected([s.matched, s.over, s.atTolerance, s.pending, s.unlisted, s.w1, s.w2]);
    const statement = csv(
      `T-1,DEPOSIT,${s.matched.externalId},,BTC,0.5,SUCCESS,${AT}`,
      `T-2,DEPOSIT,${s.over.externalId},,BTC,1.00000101,SUCCESS,${AT}`,
      `T-3,DEPOSIT,${s.atTolerance.externalId},,BTC,0.20000100,SUCCESS,${AT}`,
      `T-4,DEPOSIT,${s.pending.externalId},,USDT,10,SUCCESS,${AT}`,
      `T-5,DEPOSIT,ghost-1,,BTC,7,SUCCESS,${AT}`,
      `T-6,PAYOUT,,batch-1,BTC,0.3,SUCCESS,${AT}`,
    );
    const run = await upload(manager, statement, range);
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ providerId: 'TEST', lines: 6, breaks: 4, unresolvedBreaks: 4, fileName: 'statement.csv' });
    expect(run.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(run.body.tolerances).toEqual([{ currencyId: 'BTC', tolerance: '0.000001' }]);
    const total = (currencyId: string, direction: string, kind: string) =>
      run.body.totals.find(
        (t: { currencyId: string; direction: string; kind: string }) =>
          t.currencyId === currencyId && t.direction === direction && t.kind === kind,
      );
    expect(total('BTC', 'deposit', 'matched')).toMatchObject({ items: 2, statementAmount: '0.700001', ledgerAmount: '0.7' });
    expect(total('BTC', 'deposit', 'amount_mismatch')).toMatchObject({ items: 1, statementAmount: '1.00000101', ledgerAmount: '1' });
    expect(total('BTC', 'deposit', 'missing_in_ledger')).toMatchObject({ items: 1, statementAmount: '7', ledgerAmount: '0' });
    expect(total('BTC', 'deposit', 'missing_in_statement')).toMatchObject({ items: 1, statementAmount: '0', ledgerAmount: '0.3' });
    expect(total('USDT', 'deposit', 'status_mismatch')).toMatchObject({ items: 1, statementAmount: '10', ledgerAmount: '10' });
    expect(total('BTC', 'withdrawal', 'matched')).toMatchObject({ items: 1, statementAmount: '0.3', ledgerAmount: '0.3' });

    const items = await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}/items?limit=100`);
    expect(items.status).toBe(200);
    const shown = items.body.items.map((i: { kind: string; statement: { line: number } | null; ledger: { ids: string[] } | null }) => [
      i.kind,
      i.statement?.line ?? null,
      i.ledger?.ids ?? null,
    ]);
    expect(shown).toEqual([
      ['matched', 2, [s.matched.id]],
      ['amount_mismatch', 3, [s.over.id]],
      ['matched', 4, [s.atTolerance.id]],
      ['status_mismatch', 5, [s.pending.id]],
      ['missing_in_ledger', 6, null],
      ['matched', 7, [s.w1.id, s.w2.id]],
      ['missing_in_statement', null, [s.unlisted.id]],
    ]);
    expect(items.body.items[1]).toMatchObject({ difference: '0.00000101', ledger: { amount: '1', status: 'COMPLETE' } });
    expect(items.body.items[3]).toMatchObject({ detail: 'statement COMPLETE, ledger PENDING' });
    const breaks = await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}/items?kind=breaks`);
    expect(breaks.body.total).toBe(4);
    const missing = await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}/items?kind=missing_in_statement`);
    expect(missing.body.items.map((i: { itemNo: number }) => i.itemNo)).toEqual([7]);

    const listed = await as(viewer, 'GET', '/finance/reconciliations');
    expect(listed.body.runs[0]).toMatchObject({ id: run.body.id, breaks: 4, uploadedBy: { id: manager.id } });
    expect((await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}`)).body).toEqual(run.body);
  });

  it('when a line names a deposit booked just before the range, then it matches and is not reported missing in the ledger', async () => {
    const { range, seeded } = await window(async () => ({
      inside: await deposit('0.03', 'COMPLETE'),
      before: await deposit('0.04', 'COMPLETE', 'BTC', new Date(Date.now() - 3_600_000).toISOString()),
    }));
    await projected([seeded.inside, seeded.before]);
    const statement = csv(
      `T-1,DEPOSIT,${seeded.inside.externalId},,BTC,0.03,SUCCESS,${AT}`,
      `T-2,DEPOSIT,${seeded.before.externalId},,BTC,0.04,SUCCESS,${AT}`,
    );
    const run = await upload(manager, statement, range);
    expect([run.status, run.body.breaks]).toEqual([201, 0]);
    const items = await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}/items`);
    expect(items.body.items.map((i: { kind: string; ledger: { ids: string[] } }) => [i.kind, i.ledger.ids])).toEqual([
      ['matched', [seeded.inside.id]],
      ['matched', [seeded.before.id]],
    ]);
  });

  it('when the same statement is uploaded again, even for another range, then 409 names the first run and nothing more is kept', async () => {
    const { range, seeded } = await window(() => deposit('0.01', 'COMPLETE'));
    await projected([seeded]);
    const statement = csv(`T-1,DEPOSIT,${seeded.externalId},,BTC,0.01,SUCCESS,${AT}`);
    const first = await upload(manager, statement, range);
    expect(first.status).toBe(201);
    const [runs, items] = [await count('reconciliation_runs'), await count('reconciliation_items')];
    const again = await upload(manager, statement, { from: range.from, to: new Date().toISOString() });
    expect([again.status, again.body.code]).toEqual([409, 'STATEMENT_ALREADY_RECONCILED']);
    expect(again.body.message).toContain(first.body.id);
    expect(again.body.details).toEqual([{ field: 'runId', message: first.body.id }]);
    expect([await count('reconciliation_runs'), await count('reconciliation_items')]).toEqual([runs, items]);
  });

  it.each([
    ['a bad column', csv().replace('Tx Hash', 'Hash'), 'line 1: Hash', /unknown column "Hash"/],
    [
      'a bad amount',
      csv(`T-1,DEPOSIT,e,,BTC,1,SUCCESS,${AT}`, `T-2,DEPOSIT,e2,,BTC,12abc,SUCCESS,${AT}`),
      'line 3: Amount',
      /not a decimal/,
    ],
    ['a wrong column count', csv(`T-1,DEPOSIT,e,,BTC,1,SUCCESS,${AT}`, 'T-2,DEPOSIT,e2'), 'line 3: columns', /has 3 columns/],
    ['no header', `T-1,DEPOSIT,e,,BTC,1,SUCCESS,${AT}\r\n`, 'line 1: header', /must be the header/],
  ])(
    'when a statement has %s, then 400 STATEMENT_MALFORMED names the line and field and nothing is kept',
    async (_what, text, field, message) => {
      const before = [await count('reconciliation_runs'), await count('reconciliation_items'), await count('admin_audit_records')];
      const refused = await upload(manager, text, { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' });
      expect([refused.status, refused.body.code]).toEqual([400, 'STATEMENT_MALFORMED']);
      expect(refused.body.details[0].field).toBe(field);
      expect(refused.body.details[0].message).toMatch(message);
      expect(refused.body.message).toMatch(/nothing of this statement was kept/);
      expect([await count('reconciliation_runs'), await count('reconciliation_items'), await count('admin_audit_records')]).toEqual(before);
    },
  );

  it('when the provider has no mapping, the range is reversed or the body is not text/csv, then 4xx and nothing is kept', async () => {
    const range = { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
    const unknown = await upload(manager, csv(), range, 'NOPE');
    expect([unknown.status, unknown.body.details]).toEqual([
      400,
      [{ field: 'query.provider', message: 'no statement mapping for provider NOPE' }],
    ]);
    expect((await upload(manager, csv(), { from: range.to, to: range.from })).status).toBe(400);
    const json = await as(manager, 'POST', `/finance/reconciliations?provider=TEST&from=${range.from}&to=${range.to}`, { csv: csv() });
    expect([json.status, json.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});

describe('POST /finance/reconciliations/{id}/items/{itemNo}/resolve', () => {
  it('when a break is resolved with a note, then it shows the note and who, is audited, and the ledger and the run stay as they were', async () => {
    const { range, seeded } = await window(() => deposit('0.02', 'COMPLETE'));
    await projected([seeded]);
    const run = await upload(
      manager,
      csv(`T-1,DEPOSIT,${seeded.externalId},,BTC,0.02,SUCCESS,${AT}`, `T-2,DEPOSIT,x,,BTC,1,SUCCESS,${AT}`),
      range,
    );
    expect(run.status).toBe(201);
    const path = `/finance/reconciliations/${run.body.id}/items`;
    const ledgerBefore = await env.pool.query('SELECT * FROM deposits ORDER BY id');

    expect((await as(viewer, 'POST', `${path}/2/resolve`, { note: 'viewer' })).status).toBe(403);
    expect((await as(manager, 'POST', `${path}/2/resolve`, { note: ' ' })).status).toBe(400);
    const resolved = await as(manager, 'POST', `${path}/2/resolve`, { note: 'Provider test line; confirmed with them' });
    expect(resolved.status).toBe(201);
    expect(resolved.body).toMatchObject({
      itemNo: 2,
      kind: 'missing_in_ledger',
      resolution: { note: 'Provider test line; confirmed with them', resolvedBy: { id: manager.id } },
    });
    const twice = await as(manager, 'POST', `${path}/2/resolve`, { note: 'again' });
    expect([twice.status, twice.body.code]).toEqual([409, 'RECONCILIATION_ITEM_ALREADY_RESOLVED']);
    const matched = await as(manager, 'POST', `${path}/1/resolve`, { note: 'nothing' });
    expect([matched.status, matched.body.code]).toEqual([409, 'RECONCILIATION_ITEM_NOT_A_BREAK']);
    expect((await as(manager, 'POST', `${path}/99/resolve`, { note: 'none' })).status).toBe(404);

    const audited = await env.pool.query<{ admin_user_id: string; details: Record<string, unknown> }>(
      `SELECT admin_user_id, details FROM admin_audit_records WHERE action = 'reconciliation.resolve' AND details->>'runId' = $1`,
      [run.body.id],
    );
    expect(audited.rows).toEqual([
      {
        admin_user_id: String(manager.id),
        details: { runId: run.body.id, itemNo: 2, kind: 'missing_in_ledger', note: 'Provider test line; confirmed with them' },
      },
    ]);
    const uploads = await env.pool.query(
      `SELECT 1 FROM admin_audit_records WHERE action = 'reconciliation.upload' AND details->>'runId' = $1`,
      [run.body.id],
    );
    expect(uploads.rowCount).toBe(1);
    expect((await as(viewer, 'GET', `/finance/reconciliations/${run.body.id}`)).body).toMatchObject({ breaks: 1, unresolvedBreaks: 0 });
    expect((await env.pool.query('SELECT * FROM deposits ORDER BY id')).rows).toEqual(ledgerBefore.rows);
    await expect(env.pool.query(`UPDATE reconciliation_items SET kind = 'matched' WHERE run_id = $1`, [run.body.id])).rejects.toThrow(
      /written once/,
    );
    await expect(env.pool.query('DELETE FROM reconciliation_resolutions WHERE run_id = $1', [run.body.id])).rejects.toThrow(/written once/);
  });
});

describe('permissions', () => {
  it('when an admin lacks reconciliation.view or reconciliation.manage, then reads or uploads are 403; nobody signed in gets 401', async () => {
    const range = { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
    expect((await upload(viewer, csv(), range)).status).toBe(403);
    expect((await as(outsider, 'GET', '/finance/reconciliations')).status).toBe(403);
    expect((await as(outsider, 'GET', '/finance/reconciliations/x/items')).status).toBe(403);
    expect((await call(adminUrl, 'GET', '/finance/reconciliations')).status).toBe(401);
    expect((await as(viewer, 'GET', '/finance/reconciliations')).status).toBe(200);
    expect((await as(viewer, 'GET', '/finance/reconciliations/none')).status).toBe(404);
  });
});
