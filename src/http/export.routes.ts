import { Router } from 'express';
import type pg from 'pg';
import { ExportRangeError, openExport, type ExportKind } from '../audit/export.js';
import { CSV_FORMULA_GUARD } from '../audit/export.format.js';
import { siblingPool } from '../infra/pg.js';
import { authOf } from './auth.adapter.js';
import { guardedRoutes, type QueryValueAccess } from './access.js';
import { createExportSlots, DEFAULT_EXPORT_LIMITS, type ExportLimits } from './export-slots.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ExportQuery } from './export.schemas.js';
import { parseQuery } from './validate.js';
import { validationFailed } from '../commands/errors.js';

export const EXPORT_TRAILERS = { rows: 'X-Export-Rows', bytes: 'X-Export-Bytes', sha256: 'X-Export-Sha256' } as const;

const fileStamp = (d: string | undefined): string => (d === undefined ? 'all' : new Date(d).toISOString().replace(/[:.]/g, '-'));

/** Each export kind needs what the list it copies needs; the accounting log is the SuperAdmin's. */
export const EXPORT_ACCESS: Readonly<Record<ExportKind, QueryValueAccess>> = {
  transactions: { kind: 'superadmin' },
  deposits: { kind: 'perm', permission: 'deposits.view' },
  withdrawals: { kind: 'perm', permission: 'withdrawals.view' },
  bets: { kind: 'perm', permission: 'user.bets.view' },
  tips: { kind: 'perm', permission: 'admin-tips.view' },
};

/**
 * Row count and SHA-256 go as trailers; a failure after the first byte destroys the connection: a cut download never
 * passes as whole. Exports stream on connections of their own (never the requests' pool), a bounded number at once, each cut off past
 * its total time, when its reader stalls, or when it reads too slowly.
 */
export const exportRoutes = (deps: BackOfficeDeps & Readonly<{ exportLimits?: ExportLimits | undefined }>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const limits = deps.exportLimits ?? DEFAULT_EXPORT_LIMITS;
  const slots = createExportSlots(limits);
  let exportPool: pg.Pool | undefined;
  const poolForExports = (): pg.Pool =>
    (exportPool ??= siblingPool(deps.pool, limits.total, [`statement_timeout=${limits.maxDurationMs}`]));

  route(
    'get',
    '/accounting/export',
    { kind: 'by-query', param: 'kind', rules: EXPORT_ACCESS },
    {
      summary: 'Download a read model as CSV or NDJSON',
      addition: true,
      description:
        'Streams transactions, deposits, withdrawals, bets or admin tips with their business time (effectiveAt) in [from, to) ' +
        'and, when given, their recording time (createdAt) in [knownFrom, knownTo), in business-time order. ' +
        'from and to filter business time, when the bet was placed or the provider confirmed; knownFrom and knownTo filter the ' +
        'time the ledger recorded the row (an audit of what was known then). ' +
        'as RFC 4180 CSV (header row, CRLF) or NDJSON, with decimals exactly as stored and ISO 8601 UTC times. ' +
        `Sent chunked with the trailers ${Object.values(EXPORT_TRAILERS).join(', ')} (row count, byte count, SHA-256 hex of the body); ` +
        'a download that ends without them was cut off. ' +
        `CSV: ${CSV_FORMULA_GUARD}. ` +
        `At most ${limits.perAdmin} exports per admin and ${limits.total} in all run at once (429 EXPORT_BUSY with Retry-After past it); ` +
        'an export is cut off when its reader stalls or reads too slowly, or when it runs past its time limit.',
      request: { query: ExportQuery },
      responses: {
        200: { description: 'The file (text/csv or application/x-ndjson, attachment)' },
        400: { description: 'VALIDATION_FAILED: a bad kind, format or range' },
        429: { description: 'EXPORT_BUSY: too many exports running; retry after Retry-After seconds' },
      },
    },
    async (req, res) => {
      const q = parseQuery(ExportQuery, req);
      const release = slots.take(authOf(req).userId);
      res.once('close', release);
      let opened;
      try {
        // Opened before any header is written: a failure here is still an ordinary error response.
        opened = await openExport({
          pool: poolForExports(),
          kind: q.kind,
          format: q.format,
          from: q.from,
          to: q.to,
          knownFrom: q.knownFrom,
          knownTo: q.knownTo,
          stallTimeoutMs: limits.stallTimeoutMs,
          minBytesPerSecond: limits.minBytesPerSecond,
        });
      } catch (error) {
        release();
        if (error instanceof ExportRangeError) throw validationFailed([{ field: `query.${error.field}`, message: error.message }]);
        throw error;
      }
      res.status(200).set({
        'Content-Type': opened.contentType,
        'Content-Disposition': `attachment; filename="${q.kind}-${fileStamp(q.from)}-${fileStamp(q.to)}.${opened.extension}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        Trailer: Object.values(EXPORT_TRAILERS).join(', '),
      });
      try {
        const result = await opened.pipeTo(res, { end: false });
        res.addTrailers({
          [EXPORT_TRAILERS.rows]: String(result.rows),
          [EXPORT_TRAILERS.bytes]: String(result.bytes),
          [EXPORT_TRAILERS.sha256]: result.sha256,
        });
        res.end();
      } catch (error) {
        // The response is already destroyed by pipeTo; headers went out, so there is nothing to answer.
        req.log.warn({ err: error, kind: q.kind }, 'export aborted');
      }
    },
  );

  return router;
};
