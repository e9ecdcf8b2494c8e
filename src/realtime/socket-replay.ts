import { createPersonKeys } from '../erasure/person-keys.js';
import { withPersonalData } from '../erasure/personal-store.js';
import type pg from 'pg';
import type { Rates } from '../commands/rates.js';
import { userStream } from '../domain/user/user.events.js';
import { walletStream } from '../domain/wallet/wallet.events.js';
import {
  comparePositions,
  formatPosition,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { serverEventsOf } from './server-events.js';
import { newLookupCaches, prepareLookups, scanBackward } from './server-event-lookups.js';

export type ReplayedEvent = Readonly<{ name: string; position: string; payload: unknown }>;
export type ReplayResult =
  Readonly<{ recovered: true; events: readonly ReplayedEvent[]; position: string }> | Readonly<{ recovered: false; reason: string }>;
export type ReplayDeps = Readonly<{ store: EventStore; pool: pg.Pool; rates: Rates; maxEvents: number }>;

/** The client reloads instead. */
export const REPLAY_REFUSALS = {
  /** More than maxEvents per-user events after `since` (or more than READ_FACTOR × maxEvents stored events to read). */
  TOO_MANY_EVENTS: 'TOO_MANY_EVENTS',
  /** A position from another store, or made up. */
  UNKNOWN_POSITION: 'UNKNOWN_POSITION',
} as const;

/** Some stored events give no per-user event, a tip gives three. */
export const READ_FACTOR = 2;

const eventsAfter = async (
  store: EventStore,
  streamId: string,
  since: Position,
  head: Position,
  max: number,
): Promise<RecordedEvent[] | undefined> => {
  const out: RecordedEvent[] = [];
  for await (const e of scanBackward(store, streamId, undefined, Math.min(256, max + 1))) {
    if (comparePositions(e.position, since) <= 0) break;
    // Committed after the head was read: the live publisher sends it.
    if (comparePositions(e.position, head) > 0) continue;
    out.push(e);
    if (out.length > max) return undefined;
  }
  return out.reverse();
};

/** Same pure mappings as live delivery (server-events.ts); `recovered: false` means the client must reload. */
export const replayUserEvents = async (given: ReplayDeps, userId: number, since: Position): Promise<ReplayResult> => {
  // The user's own events read as the application reads them: personal fields decrypted (docs/compliance-erasure.md).
  const deps = { ...given, store: withPersonalData(given.store, createPersonKeys(given.pool)) };
  const head = await deps.store.headPosition();
  if (comparePositions(since, head) > 0) return { recovered: false, reason: REPLAY_REFUSALS.UNKNOWN_POSITION };
  const maxRead = deps.maxEvents * READ_FACTOR;
  const streams = await Promise.all(
    [walletStream(userId), userStream(userId)].map((s) => eventsAfter(deps.store, s, since, head, maxRead)),
  );
  if (streams.some((s) => s === undefined)) return { recovered: false, reason: REPLAY_REFUSALS.TOO_MANY_EVENTS };
  const stored = streams.flatMap((s) => s!).sort((a, b) => comparePositions(a.position, b.position));
  if (stored.length > maxRead) return { recovered: false, reason: REPLAY_REFUSALS.TOO_MANY_EVENTS };
  const lookups = await prepareLookups(deps, stored, newLookupCaches());
  const events = stored.flatMap((e) => serverEventsOf(e, lookups)).map((e) => ({ name: e.name, position: e.position, payload: e.payload }));
  if (events.length > deps.maxEvents) return { recovered: false, reason: REPLAY_REFUSALS.TOO_MANY_EVENTS };
  return { recovered: true, events, position: formatPosition(head) };
};
