import { DeadlineExceededError, NotLeaderError, UnavailableError, CancelledError } from '@kurrent/kurrentdb-client';
import type { AppendRequest, AppendResult, Position } from './event-store.port.js';

/** One append attempt outlived its deadline (the client's own call may still be running: its event ids make that safe). */
export class AttemptTimedOut extends Error {
  override readonly name = 'AttemptTimedOut';
}

/** `retry` (leader change, not ready, deadline: event ids make it safe), `unavailable` (no node: 503 at once), or `fail`. */
export type AppendFailure = 'retry' | 'unavailable' | 'fail';

export const classifyAppendFailure = (error: unknown): AppendFailure => {
  if (error instanceof NotLeaderError || error instanceof UnavailableError || error instanceof DeadlineExceededError) return 'retry';
  if (error instanceof CancelledError || error instanceof AttemptTimedOut) return 'retry';
  // The client's discovery gave up (no gossip seed answers): it already spent its own attempts.
  if (error instanceof Error && error.constructor === Error && /^Failed to discover/.test(error.message)) return 'unavailable';
  return 'fail';
};

export const withinDeadline = <T>(promise: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimedOut(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // a late failure after the deadline has no one to tell
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** An idempotent write answers the first write's position, like a fresh one: `storedBefore` tells them apart. */
export const answerOutcome = (
  request: AppendRequest,
  answer: Readonly<{ nextExpectedRevision: bigint; position?: Position | undefined }>,
  storedBefore: boolean,
): AppendResult => ({
  streamId: request.streamId,
  nextExpectedRevision: answer.nextExpectedRevision,
  position: answer.position ?? { commit: -1n, prepare: -1n },
  idempotent: storedBefore,
});
