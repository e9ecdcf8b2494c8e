import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { Users } from '../commands/users.js';
import { WrongExpectedRevision, type EventStore } from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';
import { newId } from '../shared/ids.js';
import { erasedAt, lastActivity, scrubCopies, shredKey, type ErasureRecord } from './erasure.queries.js';
import { userStream } from '../domain/user/user.events.js';
import { isLegacyPlaintext } from './personal-fields.js';
import { erasureStream, type PersonErased } from './erasure.events.js';

export type EraseRequest = Readonly<{ userId: number; adminUserId: number; reason: string; force: boolean }>;

export type EraseError =
  | Readonly<{ _tag: 'UserNotFound'; userId: number }>
  | Readonly<{ _tag: 'AlreadyErased'; userId: number; erasedAt: string }>
  | Readonly<{ _tag: 'RetentionHolds'; userId: number; lastActivity: string; retainedUntil: string }>
  | Readonly<{ _tag: 'SelfErasure'; userId: number }>;

export type Erased = Readonly<{
  userId: number;
  erasedAt: string;
  forced: boolean;
  lastActivity: string | null;
  retainedUntil: string | null;
  /** User events written before encryption whose personal fields were blanked in place, the seals kept valid by a redaction. */
  redactedEvents: number;
  /** User events written before encryption that still hold personal fields in the clear (docs/compliance-erasure.md). */
  legacyPlaintextEvents: number;
}>;

export type ErasureDeps = Readonly<{
  pool: pg.Pool;
  /** The store as stored (the audit event is not personal data). */
  store: EventStore;
  users: Pick<Users, 'load'>;
  /** Years after the last activity during which records are kept (AML record keeping): ERASURE_RETENTION_YEARS. */
  retentionYears: number;
  clock?: () => Date;
  /** Waits (bounded) for the projectors to take every event committed so far, so no batch rewrites what is scrubbed. */
  settleReadModels?: () => Promise<unknown>;
  /** Blanks the personal fields of the person's sealed user events written before encryption (PostgreSQL store, seal key). */
  redactLegacy?: (userId: number) => Promise<Readonly<{ redacted: number; left: number }>>;
  /** Ends sessions, refresh tokens and API keys. */
  endAccess?: (userId: number, reason: string, byUserId: number) => Promise<unknown>;
}>;

const addYears = (at: Date, years: number): Date => {
  const d = new Date(at.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
};

/**
 * Erases a person: audits the erasure as an event, deletes their key (the events keep ciphertext nobody can read), then
 * removes the copies beside the events. Refused while the retention rule holds, unless forced (the reason says why).
 */
export const erasePerson = async (deps: ErasureDeps, r: EraseRequest): Promise<Either<EraseError, Erased>> => {
  const now = (deps.clock ?? (() => new Date()))();
  if (r.userId === r.adminUserId) return left({ _tag: 'SelfErasure', userId: r.userId });
  if ((await deps.users.load(r.userId)).status !== 'registered') return left({ _tag: 'UserNotFound', userId: r.userId });
  const before = await erasedAt(deps.pool, r.userId);
  if (before) return left({ _tag: 'AlreadyErased', userId: r.userId, erasedAt: before.toISOString() });
  const last = await lastActivity(deps.pool, r.userId);
  const retainedUntil = last ? addYears(last, deps.retentionYears) : null;
  if (retainedUntil && retainedUntil > now && !r.force)
    return left({
      _tag: 'RetentionHolds',
      userId: r.userId,
      lastActivity: last!.toISOString(),
      retainedUntil: retainedUntil.toISOString(),
    });

  // Read as stored: events written before encryption still hold personal fields in the clear (docs/compliance-erasure.md).
  const stored = await deps.store.readStream(userStream(r.userId));
  const legacy = stored.filter((e) => isLegacyPlaintext(e.type, e.data)).length;
  const event: PersonErased = {
    type: 'PersonErased',
    data: {
      userId: r.userId,
      reason: r.reason,
      forced: r.force,
      lastActivity: last?.toISOString() ?? null,
      retainedUntil: retainedUntil?.toISOString() ?? null,
      adminUserId: r.adminUserId,
      at: now.toISOString(),
    },
  };
  // The audit first: one erasure per person (no_stream); a retry after a failure below finds it and finishes the work.
  await deps.store
    .append({ streamId: erasureStream(r.userId), expectedRevision: 'no_stream', events: [{ id: newId(), ...event }] })
    .catch((error: unknown) => {
      if (!(error instanceof WrongExpectedRevision)) throw error;
    });
  const redaction = legacy > 0 && deps.redactLegacy ? await deps.redactLegacy(r.userId) : { redacted: 0, left: legacy };
  const { redacted: redactedEvents, left: legacyPlaintextEvents } = redaction;
  const record: ErasureRecord = {
    userId: r.userId,
    erasedAt: now,
    adminUserId: r.adminUserId,
    forced: r.force,
    lastActivity: last,
    retainedUntil,
    legacyPlaintextEvents,
  };
  await inTransaction(deps.pool, (client) => shredKey(client, record));
  await deps.endAccess?.(r.userId, 'erased', r.adminUserId);
  await deps.settleReadModels?.();
  // Loaded after the key is gone: the user's state as it now reads, erased.
  const state = await deps.users.load(r.userId);
  await inTransaction(deps.pool, (client) => scrubCopies(client, r.userId, state));
  const { lastActivity: lastAt, retainedUntil: until } = event.data;
  return right({
    userId: r.userId,
    erasedAt: now.toISOString(),
    forced: r.force,
    lastActivity: lastAt,
    retainedUntil: until,
    redactedEvents,
    legacyPlaintextEvents,
  });
};
