import type { RecordedEvent } from '../infra/event-store/event-store.port.js';
import { hasMovement, isWalletEventType, walletStreamUserId, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { userAccount } from '../domain/ledger/posting.js';
import { toMinor, type Minor } from '../domain/money/money.js';

/**
 * One parameterised statement (money as strings, never JS numbers). `derived`: it keeps counts, which a bulk replay rebuilds
 * at its end instead, so a replay skips it or, where it also writes rows, runs `underived`: the same rows without the counts.
 */
export type Sql = Readonly<{ text: string; values: unknown[]; derived?: true; underived?: Sql }>;

/** A read model: a pure function from a batch of events to a few set-based statements, applied with its checkpoint. */
export type Projection = Readonly<{
  name: string;
  /** Bump to rebuild: a stored checkpoint with another version makes the runner truncate `tables` and replay. */
  version: number;
  /** Events of other types are never passed. */
  handles: readonly string[];
  /** Truncated on rebuild, including private helper tables. */
  tables: readonly string[];
  project(events: readonly RecordedEvent[]): readonly Sql[];
  /** Rebuilds the summaries its `derived` statements keep, from its rows (run once after a bulk replay). */
  rederive?: readonly Sql[];
}>;

/** An event of one stream type with its user (from the stream id), narrowed to the projection's `handles`. */
export type StreamRecord<E> = Readonly<{ userId: number; event: E; recorded: RecordedEvent }>;

export const streamRecords =
  <E>(userIdOf: (streamId: string) => number | undefined, isType: (type: string) => boolean) =>
  (events: readonly RecordedEvent[], handles: readonly string[]): StreamRecord<E>[] => {
    const out: StreamRecord<E>[] = [];
    for (const e of events) {
      const userId = userIdOf(e.streamId);
      if (userId === undefined || !isType(e.type) || !handles.includes(e.type)) continue;
      out.push({ userId, event: { type: e.type, data: e.data } as E, recorded: e });
    }
    return out;
  };

/** A wallet event with its user (from the `wallet-<userId>` stream id). */
export type WalletRecord = StreamRecord<WalletEvent>;
export const walletRecords = streamRecords<WalletEvent>(walletStreamUserId, isWalletEventType);

export type Row = Readonly<Record<string, unknown>>;

/** Every column present in each row. As `json`, not `jsonb`: read once into records, rows need no jsonb tree built. */
export const insertRows = (table: string, rows: readonly Row[], onConflict = ''): Sql[] =>
  rows.length === 0
    ? []
    : [
        {
          text: `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json) ${onConflict}`.trimEnd(),
          values: [JSON.stringify(rows)],
        },
      ];

/** A column missing from a patch keeps its value; present (even null) overwrites it. One patch per row; `key` is text. */
// The keys also go as an array: for `json_array_elements` the planner guesses 100 rows and may scan a young table whole.
export const patchRows = (table: string, key: string, columns: readonly string[], patches: readonly Row[]): Sql[] =>
  patches.length === 0
    ? []
    : [
        {
          text: `UPDATE ${table} AS t SET (${columns.join(', ')})
          = (SELECT ${columns.map((c) => `r.${c}`).join(', ')} FROM json_populate_record(t, u.p) AS r)
        FROM json_array_elements($1::json) AS u(p) WHERE t.${key} = ANY ($2::text[]) AND t.${key} = u.p->>'${key}'`,
          values: [JSON.stringify(patches), patches.map((p) => String(p[key]))],
        },
      ];

/** Created in the batch: one full row to insert; created earlier: one merged patch. Keeps batch order. */
export class EntityFold {
  private readonly created = new Map<string, Record<string, unknown>>();
  private readonly patched = new Map<string, Record<string, unknown>>();

  create(id: string, row: Row): void {
    this.created.set(id, { ...row });
  }

  patch(id: string, patch: Row): void {
    const target = this.created.get(id) ?? this.patched.get(id);
    if (target) Object.assign(target, patch);
    else this.patched.set(id, { ...patch });
  }

  inserts(): Row[] {
    return [...this.created.values()];
  }

  patches(key: string): Row[] {
    return [...this.patched.entries()].map(([id, p]) => ({ ...p, [key]: id }));
  }
}

export { MOVEMENT_EVENT_TYPES } from '../domain/wallet/wallet.transaction-types.js';

/** The user's own balance change, or undefined with no user leg (e.g. WithdrawalCompleted, a zero payout). */
export const userLegAmount = (userId: number, event: WalletEvent): Minor | undefined => {
  if (!hasMovement(event)) return undefined;
  const account = userAccount(userId);
  const legs = event.data.postings.filter((p) => p.account === account);
  if (legs.length === 0) return undefined;
  return legs.reduce((sum, p) => sum + toMinor(p.currencyId, p.amount), 0n);
};
