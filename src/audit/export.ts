/** Compliance exports: a read model streamed as CSV (RFC 4180) or NDJSON in constant memory. */
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { exportColumns, exportQuery, type ExportFormat, type ExportKind, type ExportRange } from './export.columns.js';
import { ExportStream } from './export.stream.js';
import { CSV_FORMULA_GUARD, formatterFor } from './export.format.js';

export {
  EXPORT_FORMATS,
  EXPORT_KINDS,
  EXPORT_RANGE_COLUMNS,
  exportColumns,
  exportQuery,
  type ExportFormat,
  type ExportKind,
} from './export.columns.js';

export type ExportOptions = Readonly<{
  pool: pg.Pool;
  kind: ExportKind;
  format: ExportFormat;
  /** [from, to) on business time (effective_at). */
  from?: Date | string | undefined;
  to?: Date | string | undefined;
  /** [knownFrom, knownTo) on recording time (created_at): what the ledger knew by then. */
  knownFrom?: Date | string | undefined;
  knownTo?: Date | string | undefined;
  /** How long a reader may take nothing (a stalled download) before the export ends with an error (default 60 s). */
  stallTimeoutMs?: number;
  /** A reader slower than this, over any 10 s in which the export waited for it, is cut off (default: no minimum). */
  minBytesPerSecond?: number;
  batchSize?: number;
}>;

export type ExportResult = Readonly<{ rows: number; bytes: number; sha256: string }>;

export type OpenedExport = Readonly<{
  kind: ExportKind;
  format: ExportFormat;
  columns: readonly string[];
  contentType: string;
  extension: string;
  pipeTo(output: Writable, options?: Readonly<{ end?: boolean }>): Promise<ExportResult>;
  close(): Promise<void>;
}>;

export class ExportRangeError extends Error {
  override readonly name = 'ExportRangeError';
  constructor(
    readonly field: RangeEnd,
    message: string,
  ) {
    super(message);
  }
}

type RangeEnd = keyof ExportRange;
type RangeInput = Readonly<Partial<Record<RangeEnd, Date | string | undefined>>>;

const toDate = (value: Date | string | undefined, field: RangeEnd): Date | undefined => {
  if (value === undefined) return undefined;
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new ExportRangeError(field, `${field} is not an ISO 8601 date-time: ${String(value)}`);
  return date;
};

const ordered = (start: Date | undefined, end: Date | undefined, field: RangeEnd, startName: RangeEnd): void => {
  if (start && end && start.getTime() >= end.getTime()) throw new ExportRangeError(field, `${field} must be later than ${startName}`);
};

/** Both ranges checked: each end a date-time, each end after its start; the ends not given are left out. */
export const exportRange = (input: RangeInput): ExportRange => {
  const range = {
    from: toDate(input.from, 'from'),
    to: toDate(input.to, 'to'),
    knownFrom: toDate(input.knownFrom, 'knownFrom'),
    knownTo: toDate(input.knownTo, 'knownTo'),
  };
  ordered(range.from, range.to, 'to', 'from');
  ordered(range.knownFrom, range.knownTo, 'knownTo', 'knownFrom');
  return Object.fromEntries(Object.entries(range).filter(([, v]) => v !== undefined)) as ExportRange;
};

export const openExport = async (options: ExportOptions): Promise<OpenedExport> => {
  const range = exportRange(options);
  const columns = exportColumns(options.kind);
  const formatter = formatterFor(options.format, columns);
  if (options.batchSize !== undefined && (!Number.isInteger(options.batchSize) || options.batchSize < 1))
    throw new RangeError('batchSize must be a positive integer');
  const rows = new ExportStream(exportQuery(options.kind, range), formatter, {
    stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
    minBytesPerSecond: options.minBytesPerSecond,
    maxRows: options.batchSize,
  });

  // Without a listener, a statement failing before anyone pipes would end the process; the caller still sees it.
  rows.on('error', () => undefined);
  const client = await options.pool.connect();
  // A connection that dies while checked out emits 'error' on the client: without a listener that kills the process.
  const onConnectionError = (): void => undefined;
  client.on('error', onConnectionError);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // Unfinished, the statement may still be running: the connection is destroyed, keeping its listener.
    if (rows.finished) client.off('error', onConnectionError);
    client.release(!rows.finished);
  };
  rows.once('close', release);
  client.query(rows);
  try {
    await rows.started;
  } catch (error) {
    rows.destroy();
    release();
    throw error;
  }

  return {
    kind: options.kind,
    format: options.format,
    columns: columns.map((col) => col.name),
    contentType: formatter.contentType,
    extension: formatter.extension,
    close: async () => {
      rows.destroy();
      release();
    },
    pipeTo: async (output, pipeOptions = {}) => {
      try {
        await pipeline(rows, output, { end: pipeOptions.end ?? true });
      } catch (error) {
        output.destroy(error as Error);
        rows.destroy();
        release();
        throw error;
      }
      release();
      return { rows: rows.rows, bytes: rows.bytes, sha256: rows.sha256() };
    },
  };
};

export const runExport = async (options: ExportOptions & Readonly<{ output: Writable; end?: boolean }>): Promise<ExportResult> => {
  const opened = await openExport(options);
  return opened.pipeTo(options.output, { end: options.end ?? true });
};

export type ExportManifest = Readonly<{
  kind: ExportKind;
  format: ExportFormat;
  /** [from, to) on business time (effectiveAt). */
  from: string | null;
  to: string | null;
  /** [knownFrom, knownTo) on recording time (createdAt). */
  knownFrom: string | null;
  knownTo: string | null;
  /** Which time each end of the range filters. */
  rangeAxes: Readonly<Record<RangeEnd, string>>;
  rows: number;
  bytes: number;
  sha256: string;
  columns: readonly string[];
  /** How CSV cells that would start a spreadsheet formula were written (absent for NDJSON). */
  formulaGuard?: string;
  createdAt: string;
}>;
export type ExportFileResult = ExportResult & Readonly<{ file: string; manifestFile: string; manifest: ExportManifest }>;

const RANGE_AXES: Readonly<Record<RangeEnd, string>> = {
  from: 'business time (effectiveAt)',
  to: 'business time (effectiveAt)',
  knownFrom: 'recording time (createdAt)',
  knownTo: 'recording time (createdAt)',
};

export const manifestPathOf = (file: string): string => `${file}.manifest.json`;

export const exportToFile = async (options: ExportOptions & Readonly<{ file: string; now?: () => Date }>): Promise<ExportFileResult> => {
  const range = exportRange(options);
  const opened = await openExport(options);
  const partial = `${options.file}.partial`;
  let result: ExportResult;
  try {
    result = await opened.pipeTo(createWriteStream(partial));
    await rename(partial, options.file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const manifest: ExportManifest = {
    kind: options.kind,
    format: options.format,
    from: range.from?.toISOString() ?? null,
    to: range.to?.toISOString() ?? null,
    knownFrom: range.knownFrom?.toISOString() ?? null,
    knownTo: range.knownTo?.toISOString() ?? null,
    rangeAxes: RANGE_AXES,
    rows: result.rows,
    bytes: result.bytes,
    sha256: result.sha256,
    columns: opened.columns,
    ...(options.format === 'csv' ? { formulaGuard: CSV_FORMULA_GUARD } : {}),
    createdAt: (options.now ?? (() => new Date()))().toISOString(),
  };
  const manifestFile = manifestPathOf(options.file);
  await writeFile(`${manifestFile}.partial`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${manifestFile}.partial`, manifestFile);
  return { ...result, file: options.file, manifestFile, manifest };
};
