import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { decodeWalletSnapshot, encodeWalletSnapshot } from '../commands/wallet-snapshot.js';
import { evolveOpen } from '../domain/wallet/wallet.items.js';
import { walletStreamUserId, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { initialWalletState, type WalletState } from '../domain/wallet/wallet.state.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import type { Difference } from './verify.fold.js';
import { sealMac, sealMatches } from './seal.hash.js';

/** HMAC-SHA256(key, "snapshot-check|stream|revision|sha256(data)"): a check row that the key's holder wrote. */
const digestOf = (data: unknown): string => createHash('sha256').update(JSON.stringify(data)).digest('hex');
const checkMac = (key: Buffer, streamId: string, revision: string, data: unknown): Buffer =>
  sealMac(key, 'snapshot-check', streamId, revision, digestOf(data));

type Row = { stream_id: string; revision: string; data: Record<string, unknown> };
type CheckRow = Row & { mac: Buffer };

const difference = (streamId: string, revision: string, detail: string): Difference => ({
  kind: 'snapshot',
  where: `stream ${streamId} snapshot at revision ${revision}`,
  detail,
  streamId,
  revision,
});

/**
 * Every wallet snapshot must equal the fold of its stream up to its revision (the state it lets a wallet skip). A
 * snapshot found equal is kept as a check, MACed with the seal key; the next run starts each stream's fold there, so a
 * run costs the events written since the last one, not the history. Without the key every stream folds from its start.
 * A check whose MAC does not match is reported and ignored. PostgreSQL store only (KurrentDB keeps its snapshots in
 * streams that reads of $all leave out).
 */
export const verifySnapshots = async (
  o: Readonly<{ pool: pg.Pool; store: EventStore; key: Buffer | undefined }>,
): Promise<Difference[]> => {
  if (o.store.kind !== 'postgres') return [];
  const differences: Difference[] = [];
  const { rows: snapshots } = await o.pool.query<Row>(
    'SELECT stream_id, revision::text AS revision, data FROM stream_snapshots ORDER BY stream_id',
  );
  const { rows: checks } = o.key
    ? await o.pool.query<CheckRow>('SELECT stream_id, revision::text AS revision, data, mac FROM snapshot_checks')
    : { rows: [] as CheckRow[] };
  const checkOf = new Map(checks.map((c) => [c.stream_id, c]));
  for (const s of snapshots) {
    const userId = walletStreamUserId(s.stream_id);
    if (userId === undefined) {
      differences.push(difference(s.stream_id, s.revision, 'a snapshot of a stream that is not a wallet'));
      continue;
    }
    let state: WalletState = initialWalletState(userId);
    let from = 0n;
    const check = checkOf.get(s.stream_id);
    if (check && o.key) {
      const trusted = sealMatches(o.key, check.mac, 'snapshot-check', check.stream_id, check.revision, digestOf(check.data));
      const base = trusted ? decodeWalletSnapshot(userId, check.data) : undefined;
      if (!trusted)
        differences.push(
          difference(s.stream_id, check.revision, 'the verified copy of an earlier snapshot was edited: its MAC does not match'),
        );
      else if (base && BigInt(check.revision) <= BigInt(s.revision)) {
        state = base;
        from = BigInt(check.revision) + 1n;
      }
    }
    const to = BigInt(s.revision);
    for (let next = from; next <= to;) {
      const page = await o.store.readStream(s.stream_id, { fromRevision: next, maxCount: 1000 });
      if (page.length === 0) break;
      for (const e of page) if (e.revision <= to) state = evolveOpen(state, { type: e.type, data: e.data } as WalletEvent);
      next = page.at(-1)!.revision + 1n;
    }
    const folded = encodeWalletSnapshot(state);
    if (!isDeepStrictEqual(folded, s.data)) {
      differences.push(difference(s.stream_id, s.revision, 'the snapshot is not the fold of the stream up to its revision'));
      continue;
    }
    if (o.key && (!check || check.revision !== s.revision)) {
      await o.pool.query(
        `INSERT INTO snapshot_checks (stream_id, revision, data, mac) VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision, data = excluded.data, mac = excluded.mac, checked_at = now()`,
        [s.stream_id, s.revision, JSON.stringify(s.data), checkMac(o.key, s.stream_id, s.revision, s.data)],
      );
    }
  }
  return differences;
};
