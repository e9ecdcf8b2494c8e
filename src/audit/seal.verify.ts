import type pg from 'pg';
import {
  comparePositions,
  formatPosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';
import { toRecordedEvent } from '../infra/event-store/postgres/postgres.reads.js';
import { assertSealKey, chainHash, eventHash, GENESIS, macMatches } from './seal.hash.js';
import { readCheckpoints, readSeals, revisionKey, sealedRevisions, type SealCheckpoint, type SealRow } from './seal.store.js';
import type { SealDifference, SealReport, VerifySealsDeps } from './seal.types.js';
import { readRedactions, redactionHolds } from './seal.redactions.js';

type Snapshot = Readonly<{ last: SealRow | undefined; checkpoints: SealCheckpoint[]; eventsUntil: Position }>;

/** The sealed count, the checkpoints and the store's head, as of one moment (a sealer may keep running). */
const snapshot = async (pool: pg.Pool, store: EventStore): Promise<Snapshot> => {
  const { seq, checkpoints } = await inTransaction(
    pool,
    async (client) => {
      const { rows } = await client.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM event_seals');
      return { seq: BigInt(rows[0]?.seq ?? '0'), checkpoints: await readCheckpoints(client) };
    },
    { isolation: 'repeatable read', readOnly: true },
  );
  const last = seq > 0n ? (await readSeals(pool, seq - 1n, seq, 1))[0] : undefined;
  // Read after the snapshot: every event the snapshot's seals cover is visible by now.
  return { last, checkpoints, eventsUntil: await store.headPosition() };
};

/** A read started ahead of its use; when abandoned, its failure must not surface as an unhandled rejection. */
const ahead = <T>(read: Promise<T>): Promise<T> => {
  read.catch(() => undefined);
  return read;
};

async function* eventsOf(store: EventStore, until: Position, batchSize: number): AsyncGenerator<RecordedEvent> {
  let next = ahead(store.readAll({ after: START, maxCount: batchSize }));
  for (;;) {
    const batch = await next;
    const full = batch.length === batchSize;
    if (full) next = ahead(store.readAll({ after: batch.at(-1)!.position, maxCount: batchSize }));
    for (const e of batch) {
      if (comparePositions(e.position, until) > 0) return;
      yield e;
    }
    if (!full) return;
  }
}

const heldBack = async (pool: pg.Pool, after: Position): Promise<RecordedEvent[]> => {
  const [commit, prepare] = after.commit < 0n ? ['0', '-1'] : [after.commit.toString(), after.prepare.toString()];
  const { rows } = await pool.query<Parameters<typeof toRecordedEvent>[0]>(
    `SELECT global_position, transaction_id::text AS transaction_id, stream_id, stream_revision, event_id::text AS event_id,
       type, data, metadata, created_at
     FROM events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) ORDER BY transaction_id, global_position`,
    [commit, prepare],
  );
  return rows.map(toRecordedEvent);
};

async function* sealsOf(pool: pg.Pool, upTo: bigint, batchSize: number): AsyncGenerator<SealRow> {
  let next = ahead(readSeals(pool, 0n, upTo, batchSize));
  for (;;) {
    const batch = await next;
    const last = batch.at(-1);
    const more = last !== undefined && last.seq < upTo;
    if (more) next = ahead(readSeals(pool, last.seq, upTo, batchSize));
    yield* batch;
    if (!more) return;
  }
}

const at = (p: Position): string => formatPosition(p);
const where = (s: Pick<SealRow, 'streamId' | 'revision' | 'position'>) => ({
  streamId: s.streamId,
  revision: s.revision.toString(),
  position: at(s.position),
});

/** A checkpoint to hold the chain against: from the table (MAC checked) or an off-box anchor (trusted). */
type Anchor = Readonly<{ sealedCount: bigint; position: string; chainHash: Buffer; source: string; macOk: boolean }>;

export const inspectSeals = async (deps: VerifySealsDeps): Promise<SealReport> => {
  assertSealKey(deps.key);
  const { store, pool, key, batchSize = 2000 } = deps;
  const differences: SealDifference[] = [];
  const report = (d: SealDifference): void => {
    differences.push(d);
  };
  const snap = await snapshot(pool, store);
  const sealedCount = snap.last?.seq ?? 0n;
  const sealedHead = snap.last?.position ?? START;

  const anchors = new Map<bigint, Anchor[]>();
  const addAnchor = (a: Anchor): void => {
    anchors.set(a.sealedCount, [...(anchors.get(a.sealedCount) ?? []), a]);
  };
  // A key that matches no checkpoint is named once, not as every checkpoint forged: most often it is not the ledger's key.
  const macs = snap.checkpoints.map((c) => macMatches(key, c, c.mac));
  const keyMatchesNone = macs.length > 0 && macs.every((ok) => !ok);
  if (keyMatchesNone)
    report({
      kind: 'seal-key',
      position: snap.checkpoints.at(-1)!.position,
      detail:
        `the seal key matches none of the ${macs.length} checkpoints: it is not the key the ledger was sealed with (check ` +
        'LEDGER_SEAL_KEY, or DATA_DIR/keys), or every checkpoint was rewritten; the seal chain itself is still checked below',
    });
  for (const [i, c] of snap.checkpoints.entries()) {
    const macOk = macs[i]!;
    if (!macOk && !keyMatchesNone)
      report({
        kind: 'checkpoint-forged',
        position: c.position,
        detail: `checkpoint at sealed count ${c.sealedCount}: its MAC does not match (written or changed without the key)`,
      });
    addAnchor({ sealedCount: c.sealedCount, position: c.position, chainHash: c.chainHash, source: 'checkpoint', macOk });
  }
  for (const a of deps.anchors ?? [])
    addAnchor({
      sealedCount: a.sealedCount,
      position: a.position,
      chainHash: Buffer.from(a.chainHash, 'hex'),
      source: 'off-box anchor',
      macOk: true,
    });
  for (const [count, list] of anchors) {
    if (count <= sealedCount) continue;
    for (const a of list) {
      report({
        kind: 'checkpoint-forged',
        position: a.position,
        detail: `${a.source} at sealed count ${count}, but only ${sealedCount} seals are stored: seals were removed`,
      });
    }
  }

  let lastValid = 0n;
  let valid = 0;
  let lastHeld: { count: bigint; position: string } | undefined;
  const held = new Set<bigint>();
  const holdAnchors = (s: SealRow): void => {
    if (anchors.has(s.seq)) held.add(s.seq);
    for (const a of anchors.get(s.seq) ?? []) {
      const matches = a.position === at(s.position) && a.chainHash.equals(s.chainHash);
      if (!matches) {
        const since = lastHeld ? `after the one at sealed count ${lastHeld.count} (${lastHeld.position})` : 'from the first seal';
        report({
          kind: 'checkpoint-forged',
          position: a.position,
          detail:
            `${a.source} at sealed count ${a.sealedCount} no longer matches the seal chain: the chain was rewritten somewhere ` +
            `${since} up to here`,
        });
      } else if (a.macOk) {
        lastHeld = { count: a.sealedCount, position: a.position };
        if (a.source === 'checkpoint') {
          lastValid = a.sealedCount;
          valid += 1;
        }
      }
    }
  };

  const streamLast = new Map<string, Buffer>();
  let prevChain: Buffer = GENESIS;
  let prevPosition = START;
  let expectedSeq = 1n;
  const checkSeal = (s: SealRow): void => {
    if (s.seq !== expectedSeq) {
      report({
        kind: 'deleted',
        position: at(s.position),
        detail:
          `seals #${expectedSeq}..#${s.seq - 1n} are missing before this one (#${s.seq}): ` + 'sealed events were removed with their seals',
      });
    }
    expectedSeq = s.seq + 1n;
    if (comparePositions(s.position, prevPosition) <= 0) {
      report({ kind: 'chain-broken', ...where(s), detail: `seal #${s.seq} is out of global order (after ${at(prevPosition)})` });
    }
    if (!s.prevHash.equals(streamLast.get(s.streamId) ?? GENESIS)) {
      report({ kind: 'chain-broken', ...where(s), detail: `seal #${s.seq}: prev_hash is not the hash of the stream's previous seal` });
    }
    if (!s.chainHash.equals(chainHash(prevChain, s.hash))) {
      report({ kind: 'chain-broken', ...where(s), detail: `seal #${s.seq}: chain_hash is not SHA-256(previous chain_hash || hash)` });
    }
    streamLast.set(s.streamId, s.hash);
    prevChain = s.chainHash;
    prevPosition = s.position;
    holdAnchors(s);
  };

  // Redacted at an erasure: the seal holds the event as written, the redaction (MAC'd) the event as now stored.
  const redactions = await readRedactions(pool);
  const checkSealed = (e: RecordedEvent, s: SealRow): void => {
    if (eventHash(s.prevHash, e).equals(s.hash)) return;
    const redaction = redactions.get(e.id.toLowerCase());
    if (redaction && e.id.toLowerCase() === s.eventId && redactionHolds(key, redaction, e, s.hash)) return;
    const moved =
      e.id.toLowerCase() !== s.eventId || e.streamId !== s.streamId || e.revision !== s.revision
        ? ` (sealed as event ${s.eventId}, ${s.streamId}@${s.revision}; stored: event ${e.id}, ${e.streamId}@${e.revision})`
        : '';
    report({ kind: 'edited', ...where(s), detail: `the stored event (${e.type}) no longer matches its seal #${s.seq}${moved}` });
  };

  // Events after the sealed head are not sealed yet, unless their stream revision already is (a second event at it).
  let unsealed = 0;
  let pending: RecordedEvent[] = [];
  const checkUnsealed = async (): Promise<void> => {
    const found = await sealedRevisions(
      pool,
      pending.map((e) => ({ streamId: e.streamId, revision: e.revision })),
      sealedCount,
    );
    for (const e of pending) {
      const sealed = found.get(revisionKey(e.streamId, e.revision));
      if (sealed && sealed.eventId !== e.id.toLowerCase()) {
        report({
          kind: 'inserted',
          streamId: e.streamId,
          revision: e.revision.toString(),
          position: at(e.position),
          detail: `event ${e.id} (${e.type}) takes a revision already sealed for event ${sealed.eventId} (seal #${sealed.seq})`,
        });
      } else unsealed += 1;
    }
    pending = [];
  };

  const onEvent = async (e: RecordedEvent): Promise<void> => {
    if (comparePositions(e.position, sealedHead) < 0) {
      report({
        kind: 'inserted',
        streamId: e.streamId,
        revision: e.revision.toString(),
        position: at(e.position),
        detail: `event ${e.id} (${e.type}) lies inside the sealed history but has no seal`,
      });
      return;
    }
    pending.push(e);
    if (pending.length >= batchSize) await checkUnsealed();
  };

  let done = 0;
  let total = Number(sealedCount);
  const progress = (): void => {
    done += 1;
    if (done > total) total = done;
    if (done % batchSize === 0) deps.onProgress?.(done, total);
  };

  const events = eventsOf(store, snap.eventsUntil, batchSize);
  const seals = sealsOf(pool, sealedCount, batchSize);
  let e = (await events.next()).value;
  let s = (await seals.next()).value;
  while (e || s) {
    const order = e && s ? comparePositions(e.position, s.position) : e ? -1 : 1;
    if (s && order > 0) {
      checkSeal(s);
      report({ kind: 'deleted', ...where(s), detail: `event ${s.eventId} was sealed (#${s.seq}) but is no longer stored` });
      s = (await seals.next()).value;
    } else if (e && order < 0) {
      await onEvent(e);
      progress();
      e = (await events.next()).value;
    } else if (e && s) {
      checkSeal(s);
      checkSealed(e, s);
      progress();
      e = (await events.next()).value;
      s = (await seals.next()).value;
    }
  }
  await checkUnsealed();
  pending = await heldBack(pool, snap.eventsUntil);
  await checkUnsealed();
  deps.onProgress?.(done, total);

  for (const [count, list] of anchors) {
    if (count > sealedCount || held.has(count)) continue;
    for (const a of list)
      report({
        kind: 'checkpoint-forged',
        position: a.position,
        detail: `${a.source} at sealed count ${count}: seal #${count} is missing, nothing to hold it against`,
      });
  }
  const every = deps.checkpointEvery;
  if (every !== undefined && !keyMatchesNone && sealedCount - lastValid > 2n * BigInt(every)) {
    report({
      kind: 'checkpoint-forged',
      position: at(sealedHead),
      detail:
        `no valid checkpoint covers the last ${sealedCount - lastValid} seals (one is written every ${every}): checkpoints were ` +
        `removed or no longer match`,
    });
  }
  return {
    differences,
    events: done,
    sealed: sealedCount,
    sealedHead: snap.last ? at(sealedHead) : undefined,
    unsealed,
    checkpoints: valid,
    lastCheckpoint: lastValid,
  };
};

export const verifySeals = async (deps: VerifySealsDeps): Promise<SealDifference[]> => (await inspectSeals(deps)).differences;
