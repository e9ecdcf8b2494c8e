import type pg from 'pg';
import type { Rates } from '../commands/rates.js';
import type { EventStore, Position } from '../infra/event-store/event-store.port.js';

export type ReplayedEvent = Readonly<{ name: string; position: string; payload: unknown }>;
export type ReplayResult = Readonly<{ recovered: true; events: readonly ReplayedEvent[]; position: string }> | Readonly<{ recovered: false; reason: string }>;
export type ReplayDeps = Readonly<{ store: EventStore; pool: pg.Pool; rates: Rates; maxEvents: number }>;

/**
 * The per-user events a reconnecting client missed after `since`, recomputed from the event store in
 * ledger order, or `recovered: false` when that is impossible (too many, or an unknown position) and
 * the client must reload (issue 6).
 */
export const replayUserEvents = async (_deps: ReplayDeps, _userId: number, _since: Position): Promise<ReplayResult> =>
  ({ recovered: false, reason: 'not implemented yet' });
