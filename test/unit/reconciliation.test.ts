import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reconcile, type LedgerItem } from '../../src/finance/reconciliation/reconcile.js';
import { parseStatement, type StatementLine } from '../../src/finance/reconciliation/statement.parse.js';
import { PROVIDERS } from '../../src/finance/reconciliation/statement.providers.js';
import { parseTolerances } from '../../src/finance/reconciliation/tolerances.js';

const TEST = PROVIDERS.TEST!;
const HEADER = 'Transaction ID,Type,Merchant Reference,Tx Hash,Currency,Amount,Status,Date';
const AT = '2026-10-03T09:15:00.000Z';

const line = (n: number, over: Partial<StatementLine> = {}): StatementLine => ({
  line: n,
  reference: `T-${n}`,
  direction: 'deposit',
  externalId: `ext-${n}`,
  txHash: null,
  currency: 'BTC',
  amount: 100_000_000n,
  status: 'COMPLETE',
  occurredAt: AT,
  ...over,
});
const item = (id: string, over: Partial<LedgerItem> = {}): LedgerItem => ({
  direction: 'deposit',
  id,
  keys: [id.replace('d', 'ext-')],
  txHash: null,
  currency: 'BTC',
  amount: 100_000_000n,
  status: 'COMPLETE',
  effectiveAt: AT,
  inRange: true,
  ...over,
});
const kinds = (r: ReturnType<typeof reconcile>) => r.items.map((i) => [i.kind, i.line?.line ?? null, i.ledger.map((l) => l.id)]);
const NONE = new Map<string, bigint>();

describe('reconcile: the pure matcher', () => {
  it('when each kind of break is present, then each is found once, in line order then ledger order', () => {
    const r = reconcile(
      [
        line(2),
        line(3, { amount: 99_999_999n }),
        line(4, { status: 'PENDING' }),
        line(5, { externalId: 'nowhere' }),
        line(6, { externalId: null, txHash: null }),
      ],
      [item('d2'), item('d3'), item('d4'), item('d9', { effectiveAt: '2026-10-04T00:00:00.000Z' })],
      NONE,
    );
    expect(kinds(r)).toEqual([
      ['matched', 2, ['d2']],
      ['amount_mismatch', 3, ['d3']],
      ['status_mismatch', 4, ['d4']],
      ['missing_in_ledger', 5, []],
      ['missing_in_ledger', 6, []],
      ['missing_in_statement', null, ['d9']],
    ]);
    expect(r.items[1]!.difference).toBe(-1n);
    expect(r.items[2]!.detail).toBe('statement PENDING, ledger COMPLETE');
    expect(r.totals.find((t) => t.kind === 'missing_in_statement')).toEqual({
      currency: 'BTC',
      direction: 'deposit',
      kind: 'missing_in_statement',
      items: 1,
      statement: 0n,
      ledger: 100_000_000n,
    });
  });

  it('when the difference is exactly the tolerance, then it matches; one minor unit more, then it is an amount mismatch', () => {
    const tolerances = parseTolerances('BTC=0.00000100');
    const r = reconcile(
      [line(2, { amount: 100_000_100n }), line(3, { amount: 99_999_900n }), line(4, { amount: 100_000_101n })],
      [item('d2'), item('d3'), item('d4')],
      tolerances,
    );
    expect(r.items.map((i) => [i.kind, i.difference])).toEqual([
      ['matched', 100n],
      ['matched', -100n],
      ['amount_mismatch', 101n],
    ]);
  });

  it('when one payout line carries the tx hash of several withdrawals, then it matches their sum (many-to-one)', () => {
    const w = (id: string, amount: bigint): LedgerItem =>
      item(id, { direction: 'withdrawal', keys: [id], txHash: '0xbatch', amount, status: 'COMPLETE' });
    const batch = line(2, { direction: 'withdrawal', externalId: null, txHash: '0xbatch', amount: 300_000_000n });
    const r = reconcile([batch], [w('w1', 100_000_000n), w('w2', 200_000_000n)], NONE);
    expect(kinds(r)).toEqual([['matched', 2, ['w1', 'w2']]]);
    expect(r.items[0]!.matchedBy).toBe('txHash');
    const short = reconcile([{ ...batch, amount: 299_999_999n }], [w('w1', 100_000_000n), w('w2', 200_000_000n)], NONE);
    expect(short.items.map((i) => [i.kind, i.difference])).toEqual([['amount_mismatch', -1n]]);
  });

  it('when two lines name one ledger item, then the second is missing in the ledger, naming the first', () => {
    const r = reconcile([line(2), line(3, { externalId: 'ext-2' })], [item('d2')], NONE);
    expect(kinds(r)).toEqual([
      ['matched', 2, ['d2']],
      ['missing_in_ledger', 3, []],
    ]);
    expect(r.items[1]!.detail).toBe('names ledger d2, already matched by line 2');
  });

  it('when a line names a withdrawal refused or an item outside the range, then they match; unnamed, neither is missing', () => {
    const r = reconcile(
      [line(2, { externalId: 'd7', status: 'FAILED', direction: 'withdrawal' })],
      [
        item('d7', { direction: 'withdrawal', keys: ['d7'], status: 'DENIED', inRange: false }),
        item('d8', { direction: 'withdrawal', keys: ['d8'], status: 'DENIED' }),
        item('d9', { inRange: false }),
      ],
      NONE,
    );
    expect(kinds(r)).toEqual([['matched', 2, ['d7']]]);
  });

  it('when currencies differ, then it is an amount mismatch saying so', () => {
    const r = reconcile([line(2, { currency: 'USDT', amount: 1_000_000n })], [item('d2')], NONE);
    expect([r.items[0]!.kind, r.items[0]!.detail]).toEqual(['amount_mismatch', 'currency differs: ledger BTC']);
  });
});

describe('parseStatement: the TEST provider', () => {
  it('when the committed sample is read, then every line is read in exact minor units', () => {
    const parsed = parseStatement(readFileSync('docs/samples/statement-TEST.csv', 'utf8'), TEST);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.lines).toHaveLength(5);
    expect(parsed.lines[1]).toMatchObject({ line: 3, direction: 'deposit', currency: 'USDT', amount: 250_000_000n, txHash: null });
    expect(parsed.lines[1]!.occurredAt).toBe('2026-10-04T10:00:00.000Z');
    expect(parsed.lines[2]).toMatchObject({ direction: 'withdrawal', externalId: null, txHash: '0xbatch7', status: 'COMPLETE' });
  });

  const problems = (text: string) => {
    const parsed = parseStatement(text, TEST);
    return parsed.ok ? [] : parsed.problems.map((p) => `${p.line} ${p.field}: ${p.message}`);
  };
  const ok = 'T-1,DEPOSIT,e1,,BTC,1,SUCCESS,2026-10-03T09:15:00Z';

  it.each([
    [
      'a bad amount',
      `${HEADER}\n${ok}\nT-2,DEPOSIT,e2,,BTC,1.2.3,SUCCESS,2026-10-03T09:15:00Z`,
      '3 Amount: "1.2.3" is not a decimal number',
    ],
    ['too many decimals', `${HEADER}\nT-2,DEPOSIT,e2,,USDT,1.0000001,SUCCESS,2026-10-03Z`, '2 Amount: at most 6 decimal places'],
    ['a wrong column count', `${HEADER}\n${ok}\n${ok}\nT-3,DEPOSIT,e3`, '4 columns: has 3 columns, the header 8'],
    ['an unknown column', `${HEADER.replace('Tx Hash', 'Hash')}\n${ok}`, '1 Hash: unknown column "Hash"'],
    ['a missing header', `${ok}\n${ok}`, '1 header: the first line must be the header'],
    ['an empty file', '', '1 header: the statement is empty'],
    ['an unknown type', `${HEADER}\nT-2,REFUND,e2,,BTC,1,SUCCESS,2026-10-03T09:15:00Z`, '2 Type: "REFUND" is not one of deposit, payout'],
    [
      'a type named like an object property',
      `${HEADER}\nT-2,constructor,e2,,BTC,1,SUCCESS,2026-10-03Z`,
      '2 Type: "constructor" is not one of',
    ],
    ['a time without zone', `${HEADER}\nT-2,DEPOSIT,e2,,BTC,1,SUCCESS,2026-10-03T09:15:00`, '2 Date: "2026-10-03T09:15:00" is not an ISO'],
    ['an unclosed quote', `${HEADER}\n"T-2,DEPOSIT`, '2 csv: Quote Not Closed'],
  ])('when a statement has %s, then it is refused naming line and field', (_what, text, expected) => {
    const found = problems(text);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toContain(expected);
  });

  it('when a quoted field holds commas and a line break, then it is one field (RFC 4180)', () => {
    const parsed = parseStatement(`${HEADER}\r\n"T-1, part\r\n2",DEPOSIT,e1,,BTC,1,SUCCESS,2026-10-03T09:15:00Z\r\n`, TEST);
    expect(parsed.ok && parsed.lines[0]!.reference).toBe('T-1, part\r\n2');
  });
});

describe('parseTolerances', () => {
  it('when pairs are given, then each is exact minor units; a bad pair is refused naming it', () => {
    expect(parseTolerances('BTC=0.00000100, USDT=0.01')).toEqual(
      new Map([
        ['BTC', 100n],
        ['USDT', 10_000n],
      ]),
    );
    expect(() => parseTolerances('BTC=0.000000001')).toThrow(/"BTC=0.000000001"/);
    expect(() => parseTolerances('XYZ=1')).toThrow(/XYZ=1/);
  });
});
