import { createHash } from 'node:crypto';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { recordAdminAction } from '../../commands/admin-actions.store.js';
import { newId } from '../../shared/ids.js';
import { ledgerItemsFor } from './ledger-items.queries.js';
import { reconcile, type Tolerances } from './reconcile.js';
import { itemByNo, runById, type ItemView, type RunView } from './reconciliation.queries.js';
import { insertResolution, insertRun, runOfDigest } from './reconciliation.store.js';
import { parseStatement, type StatementProblem } from './statement.parse.js';
import { providerMapping } from './statement.providers.js';
import { tolerancesView } from './tolerances.js';

export type UploadError =
  | Readonly<{ _tag: 'UnknownProvider'; providerId: string }>
  | Readonly<{ _tag: 'RangeInvalid'; message: string }>
  | Readonly<{ _tag: 'StatementNotUtf8' }>
  | Readonly<{ _tag: 'StatementMalformed'; problems: readonly StatementProblem[] }>
  | Readonly<{ _tag: 'StatementAlreadyReconciled'; runId: string; sha256: string }>;

export type ResolveError =
  | Readonly<{ _tag: 'ItemNotFound'; runId: string; itemNo: number }>
  | Readonly<{ _tag: 'ItemNotABreak'; itemNo: number }>
  | Readonly<{ _tag: 'ItemAlreadyResolved'; itemNo: number; resolution: NonNullable<ItemView['resolution']> }>;

export type Upload = Readonly<{
  providerId: string;
  from: string;
  to: string;
  fileName: string | null;
  /** The statement's bytes as uploaded: their SHA-256 names the statement. */
  statement: Buffer;
  adminUserId: number;
}>;

export type UploadPhase = 'parse' | 'ledger' | 'match' | 'write';
export type ReconciliationDeps = Readonly<{
  pool: pg.Pool;
  tolerances: Tolerances;
  clock?: () => Date;
  /** Told how long each phase of an upload took (the benchmark's breakdown). */
  observe?: (phase: UploadPhase, ms: number) => void;
}>;

const UNIQUE_VIOLATION = '23505';

/** Reconciliation runs: an upload reconciled and stored at once, or nothing stored; a break resolved with a note, audited. */
export const createReconciliations = (deps: ReconciliationDeps) => {
  const clock = deps.clock ?? (() => new Date());
  const phase = async <T>(name: UploadPhase, work: () => T | Promise<T>): Promise<T> => {
    if (!deps.observe) return work();
    const started = performance.now();
    const result = await work();
    deps.observe(name, performance.now() - started);
    return result;
  };

  const inTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await deps.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  const upload = async (u: Upload): Promise<Either<UploadError, RunView>> => {
    const mapping = providerMapping(u.providerId);
    if (!mapping) return left({ _tag: 'UnknownProvider', providerId: u.providerId });
    if (!(Date.parse(u.from) < Date.parse(u.to))) return left({ _tag: 'RangeInvalid', message: 'from must be before to' });
    const sha256 = createHash('sha256').update(u.statement).digest('hex');
    const already = await runOfDigest(deps.pool, sha256);
    if (already) return left({ _tag: 'StatementAlreadyReconciled', runId: already, sha256 });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(u.statement);
    } catch {
      return left({ _tag: 'StatementNotUtf8' });
    }
    const parsed = await phase('parse', () => parseStatement(text, mapping));
    if (!parsed.ok) return left({ _tag: 'StatementMalformed', problems: parsed.problems });
    const id = newId();
    try {
      await inTransaction(async (client) => {
        const ledger = await phase('ledger', () => ledgerItemsFor(client, u.providerId, u.from, u.to, parsed.lines));
        const { items, totals } = await phase('match', () => reconcile(parsed.lines, ledger, deps.tolerances));
        const run = {
          id,
          providerId: u.providerId,
          from: new Date(u.from).toISOString(),
          to: new Date(u.to).toISOString(),
          fileName: u.fileName,
          sha256,
          statement: text,
          lines: parsed.lines.length,
          tolerances: tolerancesView(deps.tolerances),
          totals,
          uploadedBy: u.adminUserId,
          uploadedAt: clock().toISOString(),
        };
        await phase('write', () => insertRun(client, run, items));
        await recordAdminAction(client, {
          adminUserId: u.adminUserId,
          action: 'reconciliation.upload',
          details: {
            runId: id,
            providerId: u.providerId,
            from: run.from,
            to: run.to,
            fileName: u.fileName,
            sha256,
            lines: run.lines,
            breaks: items.filter((i) => i.kind !== 'matched').length,
          },
        });
      });
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      const winner = await runOfDigest(deps.pool, sha256);
      if (!winner) throw error;
      return left({ _tag: 'StatementAlreadyReconciled', runId: winner, sha256 });
    }
    return right((await runById(deps.pool, id))!);
  };

  const resolve = async (
    r: Readonly<{ runId: string; itemNo: number; note: string; adminUserId: number }>,
  ): Promise<Either<ResolveError, ItemView>> => {
    const item = await itemByNo(deps.pool, r.runId, r.itemNo);
    if (!item) return left({ _tag: 'ItemNotFound', runId: r.runId, itemNo: r.itemNo });
    if (item.kind === 'matched') return left({ _tag: 'ItemNotABreak', itemNo: r.itemNo });
    const written = await inTransaction(async (client) => {
      const fresh = await insertResolution(client, { ...r, resolvedBy: r.adminUserId, resolvedAt: clock().toISOString() });
      if (!fresh) return false;
      await recordAdminAction(client, {
        adminUserId: r.adminUserId,
        action: 'reconciliation.resolve',
        details: { runId: r.runId, itemNo: r.itemNo, kind: item.kind, note: r.note },
      });
      return true;
    });
    const now = (await itemByNo(deps.pool, r.runId, r.itemNo))!;
    if (!written) return left({ _tag: 'ItemAlreadyResolved', itemNo: r.itemNo, resolution: now.resolution! });
    return right(now);
  };

  return { upload, resolve, tolerances: deps.tolerances };
};

export type Reconciliations = ReturnType<typeof createReconciliations>;
