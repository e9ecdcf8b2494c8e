import type pg from 'pg';
import { formatPosition } from '../infra/event-store/event-store.port.js';
import { readGroups } from './projection-reads.js';
import { type Limit } from '../shared/semaphore.js';
import { applyBatch, type Costs, type Part } from './projection-batch.js';

export const SMALL_BATCH = 64;
/** What a batch of live events is waited for: past it a batch costs little less per event, and readers without a wait lag further. */
export const COALESCE_EVENTS = SMALL_BATCH;

export type Submission = Part & Readonly<{ optional: boolean; done: (joined: boolean) => void; failed: (error: unknown) => void }>;

/** Groups caught up to the same place commit in one transaction; a failed shared batch retries each group alone. */
export const batchCombiner = (pool: pg.Pool, costs: Costs, limit: Limit, maxShares: number, replay: boolean) => {
  let pending: Submission[] = [];
  const alone = (s: Submission): Promise<void> => limit(() => applyBatch(pool, [s], costs, replay)).then(() => s.done(true), s.failed);
  const weight = (s: Submission): number =>
    s.projections.reduce((sum, p) => {
      const c = costs.get(p.name)!;
      return sum + (c.events > 0 ? c.ms / c.events : 0.1) * s.events.length;
    }, 0);
  /** Heaviest first, to the lightest share. */
  const shares = (subs: Submission[]): Submission[][] => {
    const n = Math.min(maxShares, subs.length, Math.ceil(subs[0]!.events.length / SMALL_BATCH));
    if (n <= 1) return [subs];
    const out = Array.from({ length: n }, () => ({ load: 0, subs: [] as Submission[] }));
    for (const s of [...subs].sort((a, b) => weight(b) - weight(a))) {
      const lightest = out.reduce((min, x) => (x.load < min.load ? x : min));
      lightest.subs.push(s);
      lightest.load += weight(s);
    }
    return out.map((x) => x.subs);
  };
  /** One big batch of many read models (a replay): its read groups in parallel transactions, each with its checkpoints. */
  const spread = async (s: Submission): Promise<void> => {
    const units = readGroups(s.projections).map((projections) => ({ ...s, projections }));
    try {
      await Promise.all(shares(units).map((share) => limit(() => applyBatch(pool, share, costs, replay))));
    } catch (error) {
      return s.failed(error);
    }
    s.done(true);
  };
  const together = async (subs: Submission[]): Promise<void> => {
    const needed = subs.filter((s) => !s.optional);
    if (needed.length === 0) return subs.forEach((s) => s.done(false));
    if (subs.length === 1 && replay && subs[0]!.events.length > SMALL_BATCH) return spread(subs[0]!);
    if (subs.length === 1) return alone(subs[0]!);
    try {
      await limit(() => applyBatch(pool, subs, costs, replay));
    } catch {
      for (const s of subs) if (s.optional) s.done(false);
      await Promise.all(needed.map(alone));
      return;
    }
    for (const s of subs) s.done(true);
  };
  const flush = (): void => {
    const byRange = new Map<string, Submission[]>();
    for (const s of pending) {
      const key = `${formatPosition(s.events[0]!.position)}-${formatPosition(s.events.at(-1)!.position)}`;
      byRange.set(key, [...(byRange.get(key) ?? []), s]);
    }
    pending = [];
    for (const subs of byRange.values()) for (const share of shares(subs)) void together(share);
  };
  return (part: Part, optional: boolean): Promise<boolean> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ ...part, optional, done: resolve, failed: reject });
    });
};
export type Combiner = ReturnType<typeof batchCombiner>;
