import { AppError } from '../shared/app-error.js';

/** How many exports may stream at once, in all and per admin, and for how long each. */
export type ExportLimits = Readonly<{
  total: number;
  perAdmin: number;
  /** The longest an export may run, end to end (the export connections' statement_timeout). */
  maxDurationMs: number;
  /** A reader that takes nothing for this long is cut off. */
  stallTimeoutMs: number;
  /** A reader slower than this over a 10 s window in which the export waited for it is cut off. */
  minBytesPerSecond: number;
}>;

export const DEFAULT_EXPORT_LIMITS: ExportLimits = {
  total: 4,
  perAdmin: 2,
  maxDurationMs: 15 * 60_000,
  stallTimeoutMs: 60_000,
  minBytesPerSecond: 4096,
};

const busy = (message: string): AppError => new AppError('rate-limited', 'EXPORT_BUSY', message, undefined, 5);

/** Counts running exports; `take` answers a release function, or throws 429 EXPORT_BUSY past either bound. */
export const createExportSlots = (limits: Pick<ExportLimits, 'total' | 'perAdmin'>) => {
  let running = 0;
  const byAdmin = new Map<number, number>();
  return {
    take: (adminUserId: number): (() => void) => {
      const mine = byAdmin.get(adminUserId) ?? 0;
      if (mine >= limits.perAdmin) throw busy(`At most ${limits.perAdmin} exports per admin at once; try again when one ends`);
      if (running >= limits.total) throw busy(`At most ${limits.total} exports at once; try again shortly`);
      running += 1;
      byAdmin.set(adminUserId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running -= 1;
        const left = (byAdmin.get(adminUserId) ?? 1) - 1;
        if (left === 0) byAdmin.delete(adminUserId);
        else byAdmin.set(adminUserId, left);
      };
    },
    running: (): number => running,
  };
};
