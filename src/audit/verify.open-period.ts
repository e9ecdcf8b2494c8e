import type pg from 'pg';
import { isCurrencyId, scaleOf, type CurrencyId } from '../domain/money/currency.js';
import { isParseError, parseDecimal, type Minor } from '../domain/money/money.js';
import { comparePositions, formatPosition, START, type EventStore } from '../infra/event-store/event-store.port.js';
import { LedgerFold, type Difference } from './verify.fold.js';
import { verifyClosedPeriods } from './verify.periods.js';
import { verifySnapshots } from './verify.snapshots.js';

export type OpenPeriodReport = Readonly<{
  ok: boolean;
  /** The last closed period the fold starts after (null: none closed, so it starts at the ledger's beginning). */
  since: string | null;
  head: string;
  events: number;
  streams: number;
  differences: readonly Difference[];
}>;

/**
 * The open period's verify: every closed period as verify checks it (each read once, with the seal key), then a fold
 * of only the events after the last close, starting from its closing balances and what it handed on (legs dated
 * after it, recorded before it). It checks what the full verify checks of each event (postings, amounts,
 * balanceAfter, the trial balance, holes in what it reads) and the snapshots; the read models, stream heads,
 * duplicated transaction ids and the event seals are the full verify's, whose cost is the whole ledger's.
 */
export const verifyOpenPeriod = async (
  o: Readonly<{ pool: pg.Pool; store: EventStore; key: Buffer | undefined; batchSize?: number }>,
): Promise<OpenPeriodReport> => {
  const { differences, last } = await verifyClosedPeriods(o);
  const fold = new LedgerFold([], last !== undefined);
  if (last) {
    // A wallet may appear twice (its closing balance and a leg dated ahead): summed per wallet and currency.
    const wallets = new Map<string, [number, CurrencyId, Minor]>();
    const trial = new Map<CurrencyId, Minor>();
    const add = (account: string, c: string, v: Minor): void => {
      if (!isCurrencyId(c)) return;
      trial.set(c, (trial.get(c) ?? 0n) + v);
      const user = /^user:(\d+)$/.exec(account);
      if (!user) return;
      const held = wallets.get(`${user[1]}|${c}`);
      if (held) held[2] += v;
      else wallets.set(`${user[1]}|${c}`, [Number(user[1]), c, v]);
    };
    for (const [k, v] of last.balances) {
      const [account, c] = k.split('|') as [string, string];
      add(account, c, v);
    }
    for (const leg of last.carry.legs) {
      if (!isCurrencyId(leg.currencyId)) continue;
      const m = parseDecimal(leg.amount, scaleOf(leg.currencyId));
      if (!isParseError(m)) add(leg.account, leg.currencyId, m);
    }
    fold.seed(wallets.values(), trial);
  }
  const head = await o.store.headPosition();
  for (let after = last?.position ?? START; comparePositions(after, head) < 0;) {
    const batch = await o.store.readAll({ after, maxCount: o.batchSize ?? 5000 });
    if (batch.length === 0) break;
    for (const e of batch) if (comparePositions(e.position, head) <= 0) fold.observe(e);
    after = batch.at(-1)!.position;
  }
  differences.push(...fold.differences);
  for (const { streamId, stats } of fold.gappedStreams())
    differences.push({
      kind: 'stream-gap',
      where: `stream ${streamId}`,
      detail: `revisions ${stats.min}..${stats.max} hold ${stats.count} events`,
    });
  differences.push(...fold.trialDifferences());
  for (const d of await verifySnapshots(o)) differences.push(d);
  return {
    ok: differences.length === 0,
    since: last?.period ?? null,
    head: formatPosition(head),
    events: fold.events,
    streams: fold.streams.size,
    differences,
  };
};
