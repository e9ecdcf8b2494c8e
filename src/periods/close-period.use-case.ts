import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { createStreamHandler } from '../commands/stream.handler.js';
import { comparePositions, parsePosition, START, StoreUnavailable, type EventStore } from '../infra/event-store/event-store.port.js';
import { committedHeadPosition } from '../infra/event-store/postgres/postgres.reads.js';
import { isPeriodId, nextPeriod, PERIODS_STREAM, type PeriodClosed, type PeriodId } from './periods.events.js';
import {
  closedPeriod,
  closingBalanceCount,
  closingBalances,
  firstBookedPeriod,
  periodBounds,
  type Calendar,
  type ClosedPeriod,
} from './periods.queries.js';
import { closeDigest, closeMac } from './periods.seal.js';

export type PeriodError =
  | Readonly<{ _tag: 'PeriodInvalid'; period: string; message: string }>
  | Readonly<{ _tag: 'PeriodAlreadyClosed'; period: PeriodId }>
  | Readonly<{ _tag: 'PeriodNotNext'; period: PeriodId; next: PeriodId }>
  | Readonly<{ _tag: 'PeriodNotEnded'; period: PeriodId; end: string }>;

type State = Readonly<{ lastClosed: PeriodId | undefined }>;
type Close = Readonly<{ type: 'ClosePeriod'; periodId: PeriodId; adminUserId: number }>;
/** What deciding a close needs besides the stream: the calendar, the period's bounds, the first period anything is booked in. */
type CloseContext = Readonly<{ calendar: Calendar; now: Date; start: string; end: string; firstPeriod: PeriodId | undefined }>;

/** Closes go in order, each once; a period closes only once it has ended. Pure: the clock and bounds are given. */
export const decideClose = (command: Close, state: State, ctx: CloseContext): Either<PeriodError, readonly PeriodClosed[]> => {
  const p = command.periodId;
  if (state.lastClosed !== undefined && p <= state.lastClosed) return left({ _tag: 'PeriodAlreadyClosed', period: p });
  const next = state.lastClosed !== undefined ? nextPeriod(state.lastClosed) : ctx.firstPeriod;
  if (next !== undefined && p !== next) return left({ _tag: 'PeriodNotNext', period: p, next });
  if (Date.parse(ctx.end) > ctx.now.getTime()) return left({ _tag: 'PeriodNotEnded', period: p, end: ctx.end });
  return right([
    {
      type: 'PeriodClosed',
      data: {
        periodId: p,
        timeZone: ctx.calendar.timeZone,
        unit: ctx.calendar.unit,
        start: ctx.start,
        end: ctx.end,
        adminUserId: command.adminUserId,
        at: ctx.now.toISOString(),
      },
    },
  ]);
};

const evolve = (_state: State, event: PeriodClosed): State => ({ lastClosed: event.data.periodId });

export type PeriodsDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  calendar: Calendar;
  clock?: () => Date;
  /** Seals each closing report (HMAC); unset, a report is written with its digest only and verify says it is unsealed. */
  sealKey?: Buffer;
  /** How long a close waits for the projector to write its report (default 60 s). */
  reportTimeoutMs?: number;
  /** Written for each wallet with movements in the closed period, once its report is sealed: cold wallets start there. */
  snapshotWallet?: (userId: number) => Promise<void>;
}>;

export type ClosedReport = ClosedPeriod & Readonly<{ balances: number }>;

/** The close: append PeriodClosed at the stream's revision, wait for the projector's report, seal it. */
export const createPeriods = (deps: PeriodsDeps) => {
  const clock = deps.clock ?? (() => new Date());
  const handler = createStreamHandler<State, PeriodClosed, Close, CloseContext, PeriodError>(deps.store, {
    streamOf: () => PERIODS_STREAM,
    initial: () => ({ lastClosed: undefined }),
    evolve,
    decide: decideClose,
  });

  /** Seals a written report once (a retry after a crash between writing and sealing finishes the job). */
  const seal = async (period: PeriodId): Promise<ClosedPeriod | undefined> => {
    const closed = await closedPeriod(deps.pool, period);
    if (!closed || closed.sha256 !== null) return closed;
    const { balances } = await closingBalances(deps.pool, period);
    const digest = closeDigest(closed.report, balances);
    await deps.pool.query('UPDATE period_closes SET sha256 = $2, mac = $3 WHERE period = $1 AND sha256 IS NULL', [
      period,
      digest,
      deps.sealKey ? closeMac(deps.sealKey, period, digest) : null,
    ]);
    return closedPeriod(deps.pool, period);
  };

  /** What the projector writes, asked for again (10 ms, then doubling up to 250 ms) until it is there or the time is up. */
  const awaitProjector = async <T>(ask: () => Promise<T | undefined>, timeoutMs: number, missing: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      const found = await ask();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new StoreUnavailable(`${missing}: is the projector running?`);
      await new Promise((r) => setTimeout(r, delay));
    }
  };
  const reportTimeoutMs = deps.reportTimeoutMs ?? 60_000;

  /**
   * The periods read model has applied every event committed now (so the first booked period is known), including one an
   * older open transaction elsewhere still hides from readers: the wait lasts until that transaction ends.
   */
  const caughtUp = async (timeoutMs = reportTimeoutMs): Promise<void> => {
    const head = deps.store.kind === 'postgres' ? await committedHeadPosition(deps.pool) : await deps.store.headPosition();
    await awaitProjector(
      async () => {
        const { rows } = await deps.pool.query<{ position: string }>(`SELECT position FROM projection_checkpoints WHERE name = 'periods'`);
        return comparePositions(rows[0] ? parsePosition(rows[0].position) : START, head) >= 0 ? true : undefined;
      },
      timeoutMs,
      'the periods read model is behind the ledger',
    );
  };

  const waitForReport = (period: PeriodId): Promise<ClosedPeriod> =>
    awaitProjector(() => seal(period), reportTimeoutMs, `the closing report of ${period} is not written yet`);

  const snapshots = async (period: PeriodId): Promise<void> => {
    if (!deps.snapshotWallet) return;
    const { rows } = await deps.pool.query<{ user_id: string }>(
      `SELECT DISTINCT substring(account from 6) AS user_id FROM ledger_movements_daily WHERE period = $1 AND account LIKE 'user:%'`,
      [period],
    );
    for (const r of rows) await deps.snapshotWallet(Number(r.user_id)).catch(() => undefined);
  };

  return {
    calendar: deps.calendar,
    close: async (periodId: string, adminUserId: number): Promise<Either<PeriodError, ClosedReport>> => {
      const { calendar } = deps;
      if (!isPeriodId(periodId, calendar.unit)) {
        const form = calendar.unit === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD';
        return left({ _tag: 'PeriodInvalid', period: periodId, message: `must be a ${calendar.unit} as ${form}` });
      }
      const bounds = await periodBounds(deps.pool, calendar, periodId);
      // The first close must be the first period anything is booked in: known once the read model has every event.
      const firstPeriod =
        (await handler.load(0)).state.lastClosed === undefined ? (await caughtUp(), await firstBookedPeriod(deps.pool)) : undefined;
      const handled = await handler.handle(
        0,
        { type: 'ClosePeriod', periodId, adminUserId },
        { calendar, now: clock(), ...bounds, firstPeriod },
      );
      if (handled.decision._tag === 'Left') return handled.decision;
      const report = await waitForReport(periodId);
      const balances = await closingBalanceCount(deps.pool, periodId);
      void snapshots(periodId);
      return right({ ...report, balances });
    },
    /** The last closed period, if any. */
    lastClosed: async (): Promise<PeriodId | undefined> => (await handler.load(0)).state.lastClosed,
    /** The next period a close accepts; before the first close, the first period booked (the read model waited for up to 2 s). */
    nextToClose: async (): Promise<PeriodId | undefined> => {
      const { state } = await handler.load(0);
      if (state.lastClosed !== undefined) return nextPeriod(state.lastClosed);
      await caughtUp(2_000).catch(() => undefined);
      return firstBookedPeriod(deps.pool);
    },
    seal,
  };
};

export type Periods = ReturnType<typeof createPeriods>;
