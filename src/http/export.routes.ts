import { Router } from 'express';
import { ExportRangeError, openExport } from '../audit/export.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ExportQuery } from './export.schemas.js';
import { parseQuery } from './validate.js';
import { validationFailed } from '../commands/errors.js';

export const EXPORT_TRAILERS = { rows: 'X-Export-Rows', bytes: 'X-Export-Bytes', sha256: 'X-Export-Sha256' } as const;

const fileStamp = (d: string | undefined): string => (d === undefined ? 'all' : new Date(d).toISOString().replace(/[:.]/g, '-'));

/** Row count and SHA-256 go as trailers; a failure after the first byte destroys the connection: a cut download never passes as whole. */
export const exportRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);

  route(
    'get',
    '/accounting/export',
    { kind: 'perm', permission: 'transaction.view' },
    {
      summary: 'Download a read model as CSV or NDJSON',
      addition: true,
      description:
        'Streams transactions, deposits, withdrawals, bets or admin tips with created_at in [from, to), oldest first, ' +
        'as RFC 4180 CSV (header row, CRLF) or NDJSON, with decimals exactly as stored and ISO 8601 UTC times. ' +
        `Sent chunked with the trailers ${Object.values(EXPORT_TRAILERS).join(', ')} (row count, byte count, SHA-256 hex of the body); ` +
        'a download that ends without them was cut off.',
      request: { query: ExportQuery },
      responses: {
        200: { description: 'The file (text/csv or application/x-ndjson, attachment)' },
        400: { description: 'VALIDATION_FAILED: a bad kind, format or range' },
      },
    },
    async (req, res) => {
      const q = parseQuery(ExportQuery, req);
      let opened;
      try {
        // Opened before any header is written: a failure here is still an ordinary error response.
        opened = await openExport({ pool: deps.pool, kind: q.kind, format: q.format, from: q.from, to: q.to });
      } catch (error) {
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
