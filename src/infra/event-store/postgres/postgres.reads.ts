import type pg from 'pg';
import type {
  Position,
  ReadAllOptions,
  ReadByKeysOptions,
  ReadStreamBackwardOptions,
  ReadStreamOptions,
  RecordedEvent,
  Snapshot,
  StreamKeyRule,
} from '../event-store.port.js';
import { parsePosition, START } from '../event-store.port.js';

type EventRow = {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: Date;
};

const COLUMNS = `global_position, transaction_id::text AS transaction_id, stream_id, stream_revision, event_id::text AS event_id,
  type, data, metadata, created_at`;

/** Every transaction below this xid has ended: its events are final, and no new event can ever sort before them. */
const VISIBLE = `transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;

export const toRecordedEvent = (r: EventRow): RecordedEvent => ({
  id: r.event_id,
  streamId: r.stream_id,
  revision: BigInt(r.stream_revision),
  position: { commit: BigInt(r.transaction_id), prepare: BigInt(r.global_position) },
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  createdAt: r.created_at,
});

/** xid8 is unsigned and real xids start at 3, so (0, -1) sorts before every stored event, like START. */
const positionParams = (after: Position): [string, string] =>
  after.commit < 0n ? ['0', '-1'] : [after.commit.toString(), after.prepare.toString()];

const limitParam = (maxCount: number | undefined): number | null => (maxCount === undefined ? null : Math.max(0, maxCount));

/** Revisions are dense, so a page is first read as a range: its own rows whatever plan stale statistics pick (a LIMIT alone
 * read the rest of the stream). A short range (the end, or a tampered store's hole the audit must see past) reads on. */
const pageOf = (range: string, rest: string, order: 'ASC' | 'DESC', n: string): string => `
  WITH page AS MATERIALIZED (
    SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND ${range} ORDER BY stream_revision ${order} LIMIT ${n}
  )
  SELECT * FROM page
  UNION ALL
  (SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND ${rest} AND (SELECT count(*) FROM page) < ${n}
   ORDER BY stream_revision ${order} LIMIT ${n})
  ORDER BY stream_revision ${order} LIMIT ${n}`;

export const readStreamQuery = (streamId: string, o: ReadStreamOptions = {}): pg.QueryConfig => {
  const from = (o.fromRevision ?? 0n).toString();
  const limit = limitParam(o.maxCount);
  if (limit === null) {
    return {
      text: `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision`,
      values: [streamId, from],
    };
  }
  const [start, end] = ['$2::bigint', '$2::bigint + $3::bigint'];
  const text = pageOf(`stream_revision >= ${start} AND stream_revision < ${end}`, `stream_revision >= ${end}`, 'ASC', '$3');
  return { name: 'events-stream-page', text, values: [streamId, from, limit] };
};

export const readStreamBackwardQuery = (streamId: string, o: ReadStreamBackwardOptions = {}): pg.QueryConfig => {
  const limit = limitParam(o.maxCount);
  const head = '(SELECT max(stream_revision) FROM events WHERE stream_id = $1)';
  const values: unknown[] = o.fromRevision === undefined ? [streamId] : [streamId, o.fromRevision.toString()];
  const top = o.fromRevision === undefined ? head : `LEAST($2::bigint, ${head})`;
  if (limit === null) {
    return {
      text: `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND stream_revision <= ${top} ORDER BY stream_revision DESC`,
      values,
    };
  }
  const n = `$${values.length + 1}::bigint`;
  const text = pageOf(`stream_revision <= ${top} AND stream_revision > ${top} - ${n}`, `stream_revision <= ${top} - ${n}`, 'DESC', n);
  return { name: `events-stream-page-backward${o.fromRevision === undefined ? '' : '-from'}`, text, values: [...values, limit] };
};

export const readStream = async (pool: pg.Pool, streamId: string, o: ReadStreamOptions = {}): Promise<RecordedEvent[]> =>
  (await pool.query<EventRow>(readStreamQuery(streamId, o))).rows.map(toRecordedEvent);

export const readStreamBackward = async (pool: pg.Pool, streamId: string, o: ReadStreamBackwardOptions = {}): Promise<RecordedEvent[]> =>
  (await pool.query<EventRow>(readStreamBackwardQuery(streamId, o))).rows.map(toRecordedEvent);

export const readAll = async (pool: pg.Pool, o: ReadAllOptions = {}): Promise<RecordedEvent[]> => {
  const { rows } = await pool.query<EventRow>(
    `SELECT ${COLUMNS} FROM events
     WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}
     ORDER BY events.transaction_id, events.global_position LIMIT $3`, // qualified: a bare name would sort by the text alias
    [...positionParams(o.after ?? START), limitParam(o.maxCount)],
  );
  return rows.map(toRecordedEvent);
};

export const headPosition = async (pool: pg.Pool): Promise<Position> => {
  const { rows } = await pool.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text AS transaction_id, global_position FROM events WHERE ${VISIBLE}
     ORDER BY events.transaction_id DESC, events.global_position DESC LIMIT 1`, // xid8 order, not the text alias
  );
  const r = rows[0];
  return r ? { commit: BigInt(r.transaction_id), prepare: BigInt(r.global_position) } : START;
};

/**
 * The last committed event, an older open transaction's hiding it or not: what a wait for the read models must reach for
 * every command acknowledged before it to be in them (headPosition is only what readAll can see yet).
 */
export const COMMITTED_HEAD_SQL = `SELECT e.transaction_id::text || '/' || e.global_position FROM events e
  ORDER BY e.transaction_id DESC, e.global_position DESC LIMIT 1`;

export const committedHeadPosition = async (pool: Pick<pg.Pool, 'query'>): Promise<Position> => {
  const { rows } = await pool.query<{ head: string | null }>(`SELECT (${COMMITTED_HEAD_SQL}) AS head`);
  return rows[0]?.head ? parsePosition(rows[0].head) : START;
};

/** Named per page size, so that a connection plans it once: planning it on every read cost more than running it. */
export const followingStatement = (maxCount: number): Readonly<{ name: string; text: string }> => {
  const limit = Math.max(0, Math.floor(maxCount));
  return {
    name: `events-following-${limit}`,
    // The held-back probe starts at the snapshot's xmin and stops at the first row: an index range, however far behind.
    text: `SELECT h.held_back, e.* FROM (SELECT (SELECT transaction_id FROM events
       WHERE transaction_id >= GREATEST($1::text::xid8, pg_snapshot_xmin(pg_current_snapshot()))
         AND (transaction_id > $1::text::xid8 OR global_position > $2::bigint)
       ORDER BY transaction_id, global_position LIMIT 1) IS NOT NULL AS held_back) h
     LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM events
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}
       ORDER BY events.transaction_id, events.global_position LIMIT ${limit}) e ON true`,
  };
};

/** Next readable events, plus whether a committed event is still held back by an older open transaction. */
export const readAllFollowing = async (
  pool: pg.Pool,
  after: Position,
  maxCount: number,
): Promise<{ events: RecordedEvent[]; heldBack: boolean }> => {
  const { rows } = await pool.query<Partial<EventRow> & { held_back: boolean }>({
    ...followingStatement(maxCount),
    values: positionParams(after),
  });
  const events = rows.filter((r) => r.global_position !== null && r.global_position !== undefined) as EventRow[];
  return { events: events.map(toRecordedEvent), heldBack: rows[0]?.held_back ?? false };
};

/**
 * The indexed form of a key: the stream and the key in one expression, so that the lookup can only go through the
 * rule's indexes (never along a long stream filtering on the way); the rule's migration indexes exactly these.
 */
export const streamKeySql = (keySql: string): string => `(stream_id || '/' || (${keySql}))`;
export const secondaryTypesSql = (rule: StreamKeyRule): string => rule.secondaryTypes.map((t) => `'${t.replaceAll("'", "''")}'`).join(', ');

/** A stream's events found by item key through the rule's two indexes (see StreamKeyRule), oldest first. */
export const readStreamByKeysQuery = (streamId: string, keys: readonly string[], o: ReadByKeysOptions): pg.QueryConfig => {
  const { rule } = o;
  return {
    name: `events-by-keys-${rule.name}`,
    text: `SELECT ${COLUMNS} FROM events
      WHERE (${streamKeySql(rule.primarySql)} = ANY($1::text[])
          OR (type IN (${secondaryTypesSql(rule)}) AND ${streamKeySql(rule.secondarySql)} = ANY($1::text[])))
        AND stream_revision <= $2::bigint
      ORDER BY stream_revision`,
    values: [keys.map((k) => `${streamId}/${k}`), (o.toRevision ?? 2n ** 62n).toString()],
  };
};

export const readStreamByKeys = async (
  pool: pg.Pool,
  streamId: string,
  keys: readonly string[],
  o: ReadByKeysOptions,
): Promise<RecordedEvent[]> =>
  keys.length === 0
    ? []
    : (await pool.query<EventRow>(readStreamByKeysQuery(streamId, keys, o))).rows
        .filter((r) => r.stream_id === streamId) // a stream id holding '/' could share an indexed text with another's
        .map(toRecordedEvent);

export const readSnapshot = async (pool: pg.Pool, streamId: string): Promise<Snapshot | undefined> => {
  const { rows } = await pool.query<{ revision: string; data: Record<string, unknown> }>({
    name: 'stream-snapshot-read',
    text: 'SELECT revision, data FROM stream_snapshots WHERE stream_id = $1',
    values: [streamId],
  });
  const r = rows[0];
  return r ? { revision: BigInt(r.revision), data: r.data } : undefined;
};

export const writeSnapshot = async (pool: pg.Pool, streamId: string, s: Snapshot): Promise<void> => {
  await pool.query({
    name: 'stream-snapshot-write',
    text: `INSERT INTO stream_snapshots AS s (stream_id, revision, data) VALUES ($1, $2, $3::jsonb)
      ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision, data = excluded.data, written_at = now()
      WHERE s.revision < excluded.revision`,
    values: [streamId, s.revision.toString(), JSON.stringify(s.data)],
  });
};
