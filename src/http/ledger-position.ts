import type { RequestHandler } from 'express';
import {
  formatPosition,
  parsePosition,
  START,
  comparePositions,
  type EventStore,
  type Position,
} from '../infra/event-store/event-store.port.js';
import { isTracked, type TrackedEventStore } from '../infra/event-store/append-tracker.js';
import type { ReadModelWaiter } from '../projections/read-model-waiter.js';
import { HttpError } from './http-errors.js';

/** On a command answer: the ledger position it reached (wait for it to read your write). On a consistent read: what it reflects. */
export const LEDGER_POSITION_HEADER = 'x-ledger-position';
/** On a consistent read's answer: `consistent`, `stale` (the wait bound was hit; answered anyway) or `none` (opted out). */
export const READ_CONSISTENCY_HEADER = 'x-read-consistency';
/** Query keys of a consistent read: a position to wait for, or `consistency=none`. Headers of the same meaning take precedence. */
export const POSITION_QUERY = 'position';
export const CONSISTENCY_QUERY = 'consistency';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The position this process's appends had reached, for a command answer below 500: its own events (undefined before any). */
export const ledgerPositionOf = (store: TrackedEventStore, statusCode: number): string | undefined => {
  if (statusCode >= 500) return undefined;
  const reached = store.lastAppended();
  return comparePositions(reached, START) > 0 ? formatPosition(reached) : undefined;
};

/** Every command answer (not GET/HEAD/OPTIONS) carries `ledgerPositionOf` in `x-ledger-position`. */
export const ledgerPositionHeader = (store: EventStore): RequestHandler => {
  if (!isTracked(store)) return (_req, _res, next) => next();
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
      const position = res.hasHeader(LEDGER_POSITION_HEADER) ? undefined : ledgerPositionOf(store, res.statusCode);
      if (position !== undefined) res.setHeader(LEDGER_POSITION_HEADER, position);
      return writeHead.apply(this, args);
    } as typeof res.writeHead;
    next();
  };
};

const POSITION = /^\d{1,20}\/\d{1,20}$/;

const single = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;

export type ConsistentReads = Readonly<{ waiter: ReadModelWaiter; timeoutMs: number }>;

/** A read consistent with every command acknowledged before it: waits (bounded) for its read models to reach the head or a position. */
export const consistentRead =
  (reads: ConsistentReads | undefined, readModels: readonly string[]): RequestHandler =>
  async (req, res, next) => {
    if (!reads) return next();
    try {
      const mode = req.get(READ_CONSISTENCY_HEADER) ?? single(req.query[CONSISTENCY_QUERY]);
      if (mode !== undefined && mode !== 'none' && mode !== 'consistent') {
        const field = req.get(READ_CONSISTENCY_HEADER) !== undefined ? `headers.${READ_CONSISTENCY_HEADER}` : `query.${CONSISTENCY_QUERY}`;
        throw new HttpError(400, 'VALIDATION_FAILED', 'Invalid read consistency', [{ field, message: 'must be consistent or none' }]);
      }
      if (mode === 'none') {
        res.setHeader(READ_CONSISTENCY_HEADER, 'none');
        return next();
      }
      const given = req.get(LEDGER_POSITION_HEADER) ?? single(req.query[POSITION_QUERY]);
      let target: Position | undefined;
      if (given !== undefined) {
        if (!POSITION.test(given)) {
          const field = req.get(LEDGER_POSITION_HEADER) !== undefined ? `headers.${LEDGER_POSITION_HEADER}` : `query.${POSITION_QUERY}`;
          throw new HttpError(400, 'VALIDATION_FAILED', 'Invalid ledger position', [
            { field, message: 'must be a ledger position as answered in x-ledger-position' },
          ]);
        }
        target = parsePosition(given);
      }
      const reached = await reads.waiter.reach(readModels, target, reads.timeoutMs);
      res.setHeader(
        LEDGER_POSITION_HEADER,
        formatPosition(comparePositions(reached.position, reached.target) >= 0 ? reached.target : reached.position),
      );
      res.setHeader(READ_CONSISTENCY_HEADER, reached.stale ? 'stale' : 'consistent');
      if (reached.stale)
        req.log.warn(
          { readModels, target: formatPosition(reached.target), at: formatPosition(reached.position) },
          'consistent read: bound hit, answering stale',
        );
      next();
    } catch (error) {
      next(error);
    }
  };
