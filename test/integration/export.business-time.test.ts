import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/audit/export.js';
import { parseCsv } from '../support/csv.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let user: { id: number };
/** The provider's confirmation of a February deposit, recorded on 5 March. */
const LATE = { effectiveAt: '2026-02-27T18:00:00.000Z', recordedAt: '2026-03-05T09:00:00.000Z' };

const exported = async (range: Record<string, string>): Promise<string[][]> => {
  const chunks: Buffer[] = [];
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  await runExport({ pool: w.env.pool, kind: 'transactions', format: 'csv', output, ...range });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  const at = (name: string) => header!.indexOf(name);
  return rows.map((r) => [r[at('type')]!, r[at('amount')]!, r[at('createdAt')]!, r[at('effectiveAt')]!]);
};

beforeAll(async () => {
  w = await createListsEnv('export_business_time');
  user = await w.env.makeUser();
  w.at('2026-02-20T10:00:00.000Z');
  await w.deposit(user.id, '10');
  w.at(LATE.recordedAt);
  const { deposit } = await w.ledger
    .requestDeposit({
      externalId: 'late-1',
      userId: user.id,
      providerId: 'TEST',
      networkId: 'BSC',
      currencyId: 'DBC',
      amount: '5',
      effectiveAt: '2026-02-27T17:00:00Z',
    })
    .then((r) => {
      if (r._tag === 'Left') throw new Error(r.left._tag);
      return r.right;
    });
  const completed = await w.ledger.completeDeposit(deposit.id, { effectiveAt: LATE.effectiveAt });
  expect(completed._tag).toBe('Right');
  w.at('2026-03-06T10:00:00.000Z');
  await w.deposit(user.id, '1');
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('exports by business time and by recording time', () => {
  it('when February is exported by business time, then the back-dated deposit recorded in March is in it', async () => {
    expect(await exported({ from: '2026-02-01T00:00:00Z', to: '2026-03-01T00:00:00Z' })).toEqual([
      ['DEPOSIT', '10', '2026-02-20T10:00:00.000Z', '2026-02-20T10:00:00.000Z'],
      ['DEPOSIT', '5', LATE.recordedAt, LATE.effectiveAt],
    ]);
  });

  it('when February is exported as the ledger knew it on 1 March, then the back-dated deposit is not in it', async () => {
    expect(await exported({ from: '2026-02-01T00:00:00Z', to: '2026-03-01T00:00:00Z', knownTo: '2026-03-01T00:00:00Z' })).toEqual([
      ['DEPOSIT', '10', '2026-02-20T10:00:00.000Z', '2026-02-20T10:00:00.000Z'],
    ]);
  });

  it('when only recording time is given, then the rows recorded in March come in business-time order', async () => {
    expect((await exported({ knownFrom: '2026-03-01T00:00:00Z' })).map((r) => r[1])).toEqual(['5', '1']);
  });

  it('when the back office downloads the same ranges, then the same rows, and a knownTo before knownFrom is a 400 naming it', async () => {
    const rowsOf = async (q: string) => {
      const reply = await w.get(`/accounting/export?kind=transactions&${q}`);
      expect(reply.status).toBe(200);
      return parseCsv(String(reply.body)).length - 1;
    };
    expect(await rowsOf('from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z')).toBe(2);
    expect(await rowsOf('from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z&knownTo=2026-03-01T00:00:00Z')).toBe(1);
    const bad = await w.get('/accounting/export?kind=transactions&knownFrom=2026-03-02T00:00:00Z&knownTo=2026-03-01T00:00:00Z');
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toContain('query.knownTo');
  });

  it('when the accounting log is listed with effectiveAt, then it filters business time; createdAt keeps filtering recording time', async () => {
    const list = async (where: Record<string, unknown>) => {
      const reply = await w.post('/accounting/transactions', { page: 1, take: 20, sortOrder: 'asc', where: { userId: user.id, ...where } });
      expect(reply.status).toBe(200);
      return (reply.body.data as { amount: string; createdAt: string }[]).map((t) => [t.amount, t.createdAt]);
    };
    expect(await list({ effectiveAt: { lt: '2026-03-01T00:00:00Z' } })).toEqual([
      ['10', '2026-02-20T10:00:00.000Z'],
      ['5', LATE.recordedAt],
    ]);
    expect(await list({ createdAt: { lt: '2026-03-01T00:00:00Z' } })).toEqual([['10', '2026-02-20T10:00:00.000Z']]);
  });
});
