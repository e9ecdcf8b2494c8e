import type pg from 'pg';
import { formatPosition, START, type Position } from '../infra/event-store/event-store.port.js';
import { checkpointMac, GENESIS } from './seal.hash.js';

export type SealRow = Readonly<{
  seq: bigint;
  position: Position;
  eventId: string;
  streamId: string;
  revision: bigint;
  prevHash: Buffer;
  hash: Buffer;
  chainHash: Buffer;
}>;

export type SealCheckpoint = Readonly<{ sealedCount: bigint; position: string; chainHash: Buffer; mac: Buffer; createdAt?: Date }>;

export type SealHead = Readonly<{ seq: bigint; position: Position; chainHash: Buffer }>;
export const EMPTY_HEAD: SealHead = Object.freeze({ seq: 0n, position: START, chainHash: GENESIS });

/** Serialises sealing across processes (held until COMMIT/ROLLBACK): every batch re-reads the head under it. */
export const SEAL_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':ledger-seals'))`;

type SealDbRow = {
  seq: string;
  commit_position: string;
  prepare_position: string;
  event_id: string;
  stream_id: string;
  revision: string;
  prev_hash: Buffer;
  hash: Buffer;
  chain_hash: Buffer;
};
const SEAL_COLUMNS = `seq::text AS seq, commit_position::text AS commit_position, prepare_position::text AS prepare_position,
  event_id::text AS event_id, stream_id, revision::text AS revision, prev_hash, hash, chain_hash`;

const toSeal = (r: SealDbRow): SealRow => ({
  seq: BigInt(r.seq),
  position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
  eventId: r.event_id,
  streamId: r.stream_id,
  revision: BigInt(r.revision),
  prevHash: r.prev_hash,
  hash: r.hash,
  chainHash: r.chain_hash,
});

export const readHead = async (client: pg.ClientBase): Promise<SealHead> => {
  const { rows } = await client.query<SealDbRow>(`SELECT ${SEAL_COLUMNS} FROM event_seals ORDER BY event_seals.seq DESC LIMIT 1`);
  const r = rows[0];
  return r ? toSeal(r) : EMPTY_HEAD;
};

export const streamHeads = async (client: pg.ClientBase, streamIds: readonly string[]): Promise<Map<string, Buffer>> => {
  const { rows } = await client.query<{ stream_id: string; hash: Buffer }>(
    `SELECT u.stream_id, s.hash FROM unnest($1::text[]) AS u(stream_id)
     CROSS JOIN LATERAL (SELECT hash FROM event_seals WHERE stream_id = u.stream_id ORDER BY seq DESC LIMIT 1) s`,
    [streamIds],
  );
  return new Map(rows.map((r) => [r.stream_id, r.hash]));
};

export const insertSeals = async (client: pg.ClientBase, seals: readonly SealRow[]): Promise<void> => {
  if (seals.length === 0) return;
  const hex = (b: Buffer): string => b.toString('hex');
  await client.query(
    `INSERT INTO event_seals (seq, commit_position, prepare_position, event_id, stream_id, revision, prev_hash, hash, chain_hash)
     SELECT seq, c, p, event_id, stream_id, revision, decode(prev, 'hex'), decode(h, 'hex'), decode(ch, 'hex')
     FROM unnest($1::bigint[], $2::numeric[], $3::numeric[], $4::uuid[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[])
       AS u(seq, c, p, event_id, stream_id, revision, prev, h, ch)`,
    [
      seals.map((s) => s.seq.toString()),
      seals.map((s) => s.position.commit.toString()),
      seals.map((s) => s.position.prepare.toString()),
      seals.map((s) => s.eventId),
      seals.map((s) => s.streamId),
      seals.map((s) => s.revision.toString()),
      seals.map((s) => hex(s.prevHash)),
      seals.map((s) => hex(s.hash)),
      seals.map((s) => hex(s.chainHash)),
    ],
  );
};

/** A checkpoint of the global chain at `seal` (deterministic: the same seal always gives the same MAC). */
export const checkpointOf = (key: Buffer, seal: Pick<SealRow, 'seq' | 'position' | 'chainHash'>): SealCheckpoint => {
  const fields = { position: formatPosition(seal.position), chainHash: seal.chainHash, sealedCount: seal.seq };
  return { ...fields, mac: checkpointMac(key, fields) };
};

/** Inserts the checkpoints; one already stored at the same count is kept (a re-sealed batch gives the same one). */
export const insertCheckpoints = async (client: pg.ClientBase, checkpoints: readonly SealCheckpoint[]): Promise<SealCheckpoint[]> => {
  if (checkpoints.length === 0) return [];
  const { rows } = await client.query<{ sealed_count: string }>(
    `INSERT INTO seal_checkpoints (sealed_count, position, chain_hash, mac)
     SELECT n, pos, decode(ch, 'hex'), decode(mac, 'hex') FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(n, pos,
       ch, mac)
     ON CONFLICT (sealed_count) DO NOTHING RETURNING sealed_count::text AS sealed_count`,
    [
      checkpoints.map((c) => c.sealedCount.toString()),
      checkpoints.map((c) => c.position),
      checkpoints.map((c) => c.chainHash.toString('hex')),
      checkpoints.map((c) => c.mac.toString('hex')),
    ],
  );
  const written = new Set(rows.map((r) => BigInt(r.sealed_count)));
  return checkpoints.filter((c) => written.has(c.sealedCount));
};

export const lastCheckpointCount = async (client: pg.ClientBase): Promise<bigint> => {
  const { rows } = await client.query<{ n: string | null }>('SELECT max(sealed_count)::text AS n FROM seal_checkpoints');
  return BigInt(rows[0]?.n ?? '0');
};

export const readSeals = async (pool: pg.Pool, afterSeq: bigint, upTo: bigint, limit: number): Promise<SealRow[]> => {
  const { rows } = await pool.query<SealDbRow>(
    `SELECT ${SEAL_COLUMNS} FROM event_seals WHERE seq > $1 AND seq <= $2 ORDER BY event_seals.seq LIMIT $3`,
    [afterSeq.toString(), upTo.toString(), limit],
  );
  return rows.map(toSeal);
};

export const readCheckpoints = async (client: pg.ClientBase): Promise<SealCheckpoint[]> => {
  const { rows } = await client.query<{ sealed_count: string; position: string; chain_hash: Buffer; mac: Buffer; created_at: Date }>(
    `SELECT sealed_count::text AS sealed_count, position, chain_hash, mac, created_at
     FROM seal_checkpoints ORDER BY seal_checkpoints.sealed_count`,
  );
  return rows.map((r) => ({
    sealedCount: BigInt(r.sealed_count),
    position: r.position,
    chainHash: r.chain_hash,
    mac: r.mac,
    createdAt: r.created_at,
  }));
};

/** Sealed events among `keys` (stream id + revision) with seq <= upTo: a second event at a sealed revision. */
export const sealedRevisions = async (
  pool: pg.Pool,
  keys: readonly Readonly<{ streamId: string; revision: bigint }>[],
  upTo: bigint,
): Promise<Map<string, Readonly<{ eventId: string; seq: bigint }>>> => {
  if (keys.length === 0) return new Map();
  const { rows } = await pool.query<{ stream_id: string; revision: string; event_id: string; seq: string }>(
    `SELECT s.stream_id, s.revision::text AS revision, s.event_id::text AS event_id, s.seq::text AS seq
     FROM unnest($1::text[], $2::bigint[]) AS u(stream_id, revision)
     JOIN event_seals s ON s.stream_id = u.stream_id AND s.revision = u.revision AND s.seq <= $3`,
    [keys.map((k) => k.streamId), keys.map((k) => k.revision.toString()), upTo.toString()],
  );
  return new Map(rows.map((r) => [`${r.stream_id}\u0000${r.revision}`, { eventId: r.event_id, seq: BigInt(r.seq) }]));
};

export const revisionKey = (streamId: string, revision: bigint): string => `${streamId}\u0000${revision}`;
