import type pg from 'pg';
import { isCurrencyId, scaleOf, type CurrencyId } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal, type Minor } from '../domain/money/money.js';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
} from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';
import { verifySeals, type SealAnchor } from './seal.js';
import { verifySnapshots } from './verify.snapshots.js';
import { verifyPeriods } from './verify.periods.js';
import {
  accountBalancesExpectation,
  adminTipsExpectation,
  LedgerFold,
  STATUS_TABLES,
  statusExpectation,
  transactionsExpectation,
  walletBalancesExpectation,
  type Difference,
  type Expectation,
  type Tally,
} from './verify.fold.js';

export { formatDifference, type Difference, type DifferenceKind } from './verify.fold.js';

export type VerifyProgress = Readonly<{ phase: 'events' | 'seals'; done: number; total: number | undefined }>;

export type VerifyOptions = Readonly<{
  store: EventStore;
  /** The PostgreSQL holding the read models (and, for the default store, the events). */
  pool: pg.Pool;
  seals: Readonly<{ key: Buffer; checkpointEvery?: number; anchors?: readonly SealAnchor[] }> | false;
  batchSize?: number;
  onProgress?: (progress: VerifyProgress) => void;
}>;

export type VerifyReport = Readonly<{
  ok: boolean;
  /** The store's head when the check started: every event up to it was folded. */
  head: string;
  events: number;
  streams: number;
  readModels: Readonly<Record<string, string>>;
  sealsChecked: boolean;
  differences: readonly Difference[];
}>;

type Client = pg.PoolClient;
const key = (...parts: readonly (string | number)[]): string => parts.join('\u0000');
const fmt = (c: CurrencyId, m: Minor): string => fromMinor(c, m);
const plural = (n: bigint | number | string, word: string): string => `${n} ${word}${BigInt(n) === 1n ? '' : 's'}`;

/** A numeric column read back as text, in the currency's minor units (or why it cannot be). */
const stored = (c: string, v: string | null): Minor | string => {
  if (v === null) return 'NULL';
  if (!isCurrencyId(c)) return `unknown currency ${c}`;
  const m = parseDecimal(v, scaleOf(c));
  return isParseError(m) ? `"${v}": ${m.message}` : m;
};

const rowDiff = (table: string, row: string, detail: string): Difference => ({
  kind: 'read-model',
  where: `table ${table} row (${row})`,
  detail,
  table,
  row,
});

const compareBalances = <R extends { currencyId: CurrencyId; balance: Minor }>(
  table: string,
  expected: ReadonlyMap<string, R>,
  actual: readonly { k: string; row: string; currencyId: string; balance: string | null }[],
  rowOf: (r: R) => string,
): Difference[] => {
  const out: Difference[] = [];
  const seen = new Set<string>();
  for (const a of actual) {
    seen.add(a.k);
    const want = expected.get(a.k);
    const got = stored(a.currencyId, a.balance);
    if (!want) out.push(rowDiff(table, a.row, `balance ${a.balance ?? 'NULL'} in the read model, but no event moves it`));
    else if (typeof got === 'string') out.push(rowDiff(table, a.row, `balance ${got}`));
    else if (got !== want.balance)
      out.push(
        rowDiff(
          table,
          a.row,
          `balance ${fmt(want.currencyId, got)} in the read model, the events give ${fmt(want.currencyId, want.balance)}`,
        ),
      );
  }
  for (const [k, want] of expected)
    if (!seen.has(k)) out.push(rowDiff(table, rowOf(want), `missing; the events give a balance of ${fmt(want.currencyId, want.balance)}`));
  return out;
};

const compareTallies = (
  table: string,
  column: string,
  expected: ReadonlyMap<string, Tally & { group: string; currencyId: CurrencyId }>,
  actual: readonly { grp: string; currency_id: string; n: string; total: string | null }[],
): Difference[] => {
  const out: Difference[] = [];
  const seen = new Set<string>();
  for (const a of actual) {
    const k = key(a.grp, a.currency_id);
    seen.add(k);
    const want = expected.get(k) ?? { count: 0n, sum: 0n };
    const row = `${column}=${a.grp}, currency_id=${a.currency_id}`;
    const sum = stored(a.currency_id, a.total);
    if (BigInt(a.n) !== want.count) out.push(rowDiff(table, row, `${plural(a.n, 'row')}, the events give ${want.count}`));
    if (typeof sum === 'string') out.push(rowDiff(table, row, `sum(amount) ${sum}`));
    else if (sum !== want.sum)
      out.push(
        rowDiff(
          table,
          row,
          `sum(amount) ${fmt(a.currency_id as CurrencyId, sum)}, the events give ${fmt(a.currency_id as CurrencyId, want.sum)}`,
        ),
      );
  }
  for (const [k, want] of expected) {
    if (!seen.has(k))
      out.push(
        rowDiff(
          table,
          `${column}=${want.group}, currency_id=${want.currencyId}`,
          `no rows, the events give ${plural(want.count, 'row')} summing to ${fmt(want.currencyId, want.sum)}`,
        ),
      );
  }
  return out;
};

type ReadModelCheck = Readonly<{ expectation: Expectation; compare: (client: Client) => Promise<Difference[]> }>;

/** A balances table against the fold's rows, keyed by `keyColumn` (read back with `keyOf`) and currency. */
const balancesCheck = <R extends { currencyId: CurrencyId; balance: Minor }>(
  table: string,
  keyColumn: string,
  expected: Readonly<{ expectation: Expectation; rows: ReadonlyMap<string, R> }>,
  rowOf: (r: R) => string,
  keyOf: (value: string) => string | number = (value) => value,
): ReadModelCheck => ({
  expectation: expected.expectation,
  compare: async (client) => {
    const { rows } = await client.query<{ k: string; currency_id: string; balance: string | null }>(
      `SELECT ${keyColumn} AS k, currency_id, balance FROM ${table}`,
    );
    const actual = rows.map((r) => ({
      k: key(keyOf(r.k), r.currency_id),
      row: `${keyColumn}=${r.k}, currency_id=${r.currency_id}`,
      currencyId: r.currency_id,
      balance: r.balance,
    }));
    return compareBalances(table, expected.rows, actual, rowOf);
  },
});

/** Rows per type and currency, and their summed amount, against the fold's tallies. */
const typeTalliesCheck = (
  table: string,
  expected: Readonly<{ expectation: Expectation; groups: ReadonlyMap<string, Tally & { group: string; currencyId: CurrencyId }> }>,
): ReadModelCheck => ({
  expectation: expected.expectation,
  compare: async (client) => {
    const { rows } = await client.query<{ grp: string; currency_id: string; n: string; total: string | null }>(
      `SELECT type AS grp, currency_id, count(*)::text AS n, sum(amount)::text AS total FROM ${table} GROUP BY 1, 2`,
    );
    return compareTallies(table, 'type', expected.groups, rows);
  },
});

const readModelChecks = (): ReadModelCheck[] => {
  const statuses = STATUS_TABLES.map((table) => ({ table, ...statusExpectation(table) }));
  return [
    balancesCheck(
      'wallet_balances',
      'user_id',
      walletBalancesExpectation(),
      (w) => `user_id=${w.userId}, currency_id=${w.currencyId}`,
      Number,
    ),
    balancesCheck('account_balances', 'account', accountBalancesExpectation(), (a) => `account=${a.account}, currency_id=${a.currencyId}`),
    typeTalliesCheck('transactions', transactionsExpectation()),
    typeTalliesCheck('admin_tips', adminTipsExpectation()),
    ...statuses.map(({ table, expectation, counts }): ReadModelCheck => ({
      expectation,
      compare: async (client) => {
        // The table name comes from the fixed STATUS_TABLES list, never from input.
        const { rows } = await client.query<{ status: string; n: string }>(
          `SELECT status, count(*)::text AS n FROM ${table} GROUP BY status`,
        );
        const want = counts();
        const out: Difference[] = [];
        for (const status of new Set([...want.keys(), ...rows.map((r) => r.status)])) {
          const got = BigInt(rows.find((r) => r.status === status)?.n ?? '0');
          const expected = want.get(status) ?? 0n;
          if (got !== expected) out.push(rowDiff(table, `status=${status}`, `${plural(got, 'row')}, the events give ${expected}`));
        }
        return out;
      },
    })),
  ];
};

const locateGaps = async (store: EventStore, streamId: string): Promise<Difference[]> => {
  const out: Difference[] = [];
  let expected = 0n;
  for (let from = 0n; ;) {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount: 1000 });
    for (const e of page) {
      if (e.revision > expected) {
        const missing =
          e.revision - expected === 1n ? `revision ${expected} is missing` : `revisions ${expected}..${e.revision - 1n} are missing`;
        out.push({
          kind: 'stream-gap',
          where: `stream ${streamId} before revision ${e.revision} (position ${formatPosition(e.position)})`,
          detail: missing,
          streamId,
          revision: expected.toString(),
        });
      }
      expected = e.revision + 1n;
    }
    if (page.length < 1000) break;
    from = page[page.length - 1]!.revision + 1n;
  }
  return out;
};

const streamHeads = async (client: Client): Promise<Difference[]> => {
  const { rows } = await client.query<{ stream_id: string; head: string | null; last: string | null }>(`
    SELECT coalesce(s.stream_id, e.stream_id) AS stream_id, s.revision::text AS head, e.last::text AS last
    FROM streams s FULL JOIN (SELECT stream_id, max(stream_revision) AS last FROM events GROUP BY stream_id) e ON e.stream_id = s.stream_id
    WHERE s.revision IS DISTINCT FROM e.last ORDER BY 1`);
  return rows.map((r) => ({
    kind: 'stream-head' as const,
    where: `stream ${r.stream_id}`,
    streamId: r.stream_id,
    table: 'streams',
    row: `stream_id=${r.stream_id}`,
    detail:
      r.head === null
        ? `events up to revision ${r.last} but no streams row`
        : r.last === null
          ? `streams row at revision ${r.head} but no events`
          : `streams row says revision ${r.head}, the last event is revision ${r.last}`,
  }));
};

/** PostgreSQL store: accounting transaction ids used by more than one event (one statement, no memory in Node). */
const duplicateTransactions = async (client: Client): Promise<Difference[]> => {
  const { rows } = await client.query<{ tx: string; places: string[] }>(`
    SELECT data->>'transactionId' AS tx,
      array_agg(stream_id || ' revision ' || stream_revision || ' position ' || transaction_id::text || '/' || global_position
        ORDER BY transaction_id, global_position) AS places
    FROM events WHERE data ? 'transactionId' GROUP BY 1 HAVING count(*) > 1 ORDER BY 1`);
  return rows.map((r) => ({
    kind: 'duplicate-transaction' as const,
    where: `transaction ${r.tx}`,
    detail: `carried by ${r.places.length} events: ${r.places.join('; ')}`,
  }));
};

/** Read models are compared in one REPEATABLE READ snapshot, so a running projector causes no false alarms. */
export const verifyLedger = async (options: VerifyOptions): Promise<VerifyReport> => {
  const { store, pool } = options;
  const checks = readModelChecks();
  const { differences, head, fold, expectations } = await inTransaction(
    pool,
    async (snapshot) => {
      // The fold below may take long; this transaction only reads.
      await snapshot.query('SET LOCAL idle_in_transaction_session_timeout = 0');
      const { rows: cps } = await snapshot.query<{ name: string; position: string }>('SELECT name, position FROM projection_checkpoints');
      const cutoffOf = (projection: string): Position => {
        const cp = cps.find((c) => c.name === projection);
        return cp ? parsePosition(cp.position) : START;
      };
      const expectations = checks.map((c) => ({ cutoff: cutoffOf(c.expectation.projection), expectation: c.expectation }));
      const head = await store.headPosition();
      const total =
        store.kind === 'postgres'
          ? Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]?.n ?? 0)
          : undefined;
      const fold = new LedgerFold(expectations);
      options.onProgress?.({ phase: 'events', done: 0, total });
      for (let after = START; comparePositions(after, head) < 0;) {
        const batch = await store.readAll({ after, maxCount: options.batchSize ?? 5000 });
        if (batch.length === 0) break;
        for (const e of batch) if (comparePositions(e.position, head) <= 0) fold.observe(e);
        after = batch[batch.length - 1]!.position;
        options.onProgress?.({ phase: 'events', done: fold.events, total });
      }
      const differences: Difference[] = [];
      // No spread: a badly damaged ledger can have more differences than a call takes arguments.
      const add = (found: Iterable<Difference>): void => {
        for (const d of found) differences.push(d);
      };
      add(fold.differences);
      for (const { streamId } of fold.gappedStreams()) add(await locateGaps(store, streamId));
      add(fold.trialDifferences());
      if (store.kind === 'postgres') {
        add(await streamHeads(snapshot));
        add(await duplicateTransactions(snapshot));
      }
      for (const check of checks) add(await check.compare(snapshot));
      return { differences, head, fold, expectations };
    },
    { isolation: 'repeatable read', readOnly: true },
  );
  if (options.seals) {
    const seals = await verifySeals({
      store,
      pool,
      key: options.seals.key,
      ...(options.seals.checkpointEvery === undefined ? {} : { checkpointEvery: options.seals.checkpointEvery }),
      ...(options.seals.anchors ? { anchors: options.seals.anchors } : {}),
      onProgress: (done, sealTotal) => options.onProgress?.({ phase: 'seals', done, total: sealTotal }),
    });
    for (const s of seals) {
      const where = [s.streamId && `stream ${s.streamId}`, s.revision && `revision ${s.revision}`, s.position && `position ${s.position}`]
        .filter(Boolean)
        .join(' ');
      differences.push({
        kind: 'seal',
        where: where || 'seals',
        detail: `${s.kind}: ${s.detail}`,
        ...(s.streamId ? { streamId: s.streamId } : {}),
        ...(s.revision ? { revision: s.revision } : {}),
        ...(s.position ? { position: s.position } : {}),
      });
    }
  }
  // A key the seals say is not the ledger's would neither check nor write the MACed checks of snapshots and periods.
  const wrongKey = differences.some((d) => d.kind === 'seal' && d.detail.startsWith('seal-key:'));
  const sealKey = options.seals && !wrongKey ? options.seals.key : undefined;
  for (const d of await verifySnapshots({ pool, store, key: sealKey })) differences.push(d);
  for (const d of await verifyPeriods({ pool, store, key: sealKey })) differences.push(d);
  return {
    ok: differences.length === 0,
    head: formatPosition(head),
    events: fold.events,
    streams: fold.streams.size,
    readModels: Object.fromEntries(expectations.map((x) => [x.expectation.projection, formatPosition(x.cutoff)])),
    sealsChecked: options.seals !== false,
    differences,
  };
};
