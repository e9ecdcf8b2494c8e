import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import type { RawRow, RowFormatter } from './export.format.js';

const CHUNK_CHARS = 64 * 1024;
/** The window over which a reader's rate is judged. */
export const RATE_WINDOW_MS = 10_000;

/** A pg `Submittable` that is also a Readable. */
export class ExportStream extends Readable implements pg.Submittable {
  rows = 0;
  bytes = 0;
  /** The server answered ReadyForQuery: every row was read and the connection is reusable. */
  finished = false;
  readonly started: Promise<void>;
  private readonly hash = createHash('sha256');
  private lines: string[] = [];
  private chars = 0;
  private prefix: string;
  private connection: pg.Connection | undefined;
  private socketPaused = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private rateTimer: NodeJS.Timeout | undefined;
  /** Whether the export waited for its reader during the current rate window, and the bytes sent before it. */
  private waitedInWindow = false;
  private bytesAtWindow = 0;
  private start!: () => void;
  private failStart!: (error: unknown) => void;

  constructor(
    private readonly query: Readonly<{ text: string; values: readonly string[] }>,
    private readonly formatter: RowFormatter,
    private readonly limits: Readonly<{ stallTimeoutMs: number; minBytesPerSecond?: number | undefined; maxRows?: number | undefined }>,
  ) {
    super({ highWaterMark: 2 * CHUNK_CHARS });
    this.prefix = formatter.header;
    this.started = new Promise<void>((resolve, reject) => {
      this.start = resolve;
      this.failStart = reject;
    });
    this.started.catch(() => undefined); // awaited by the owner; never an unhandled rejection
  }

  sha256(): string {
    return this.hash.copy().digest('hex');
  }

  submit(connection: pg.Connection): void {
    this.connection = connection;
    connection.parse({ name: '', text: this.query.text, types: [] }, true);
    connection.bind({ portal: '', statement: '', values: [...this.query.values] }, true);
    connection.describe({ type: 'P', name: '' }, true);
    connection.execute({ portal: '' }, true); // no row limit: the whole result
    connection.sync();
  }

  handleRowDescription(): void {
    this.start();
    const minimum = this.limits.minBytesPerSecond;
    if (minimum !== undefined && minimum > 0) {
      // Judged only over windows in which the reader, not the database, held the export back.
      this.rateTimer = setInterval(() => {
        const sent = this.bytes - this.bytesAtWindow;
        if (this.waitedInWindow && !this.finished && sent < (minimum * RATE_WINDOW_MS) / 1000) {
          this.destroy(new Error(`export too slow: the reader took ${sent} bytes in ${RATE_WINDOW_MS} ms`));
        }
        this.waitedInWindow = this.socketPaused;
        this.bytesAtWindow = this.bytes;
      }, RATE_WINDOW_MS);
      this.rateTimer.unref();
    }
  }

  handleDataRow(message: Readonly<{ fields: RawRow }>): void {
    if (this.destroyed) return;
    let line: string;
    // Never throw into pg's message loop.
    try {
      line = this.formatter.line(message.fields);
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    this.lines.push(line);
    this.chars += line.length;
    this.rows += 1;
    if (this.chars >= CHUNK_CHARS || this.lines.length === this.limits.maxRows) this.flush();
  }

  handleCommandComplete(): void {
    this.flush();
  }

  handleReadyForQuery(): void {
    if (this.destroyed) return;
    this.flush();
    this.finished = true;
    clearInterval(this.rateTimer);
    this.resumeSocket();
    this.push(null);
  }

  handleError(error: unknown): void {
    this.failStart(error);
    this.resumeSocket(); // let pg read on to the server's ReadyForQuery
    if (!this.destroyed) this.destroy(error instanceof Error ? error : new Error(String(error)));
  }

  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  override _read(): void {
    this.resumeSocket();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.stallTimer);
    clearInterval(this.rateTimer);
    done(error);
  }

  private flush(): void {
    if (this.lines.length === 0 && this.prefix === '') return;
    if (this.lines.length > 0) this.lines.push('');
    const buffer = Buffer.from(this.prefix + this.lines.join(this.formatter.newline), 'utf8');
    this.prefix = '';
    this.lines = [];
    this.chars = 0;
    this.hash.update(buffer);
    this.bytes += buffer.length;
    if (!this.push(buffer)) this.pauseSocket();
  }

  private pauseSocket(): void {
    if (this.socketPaused || !this.connection || this.finished) return;
    this.socketPaused = true;
    this.waitedInWindow = true;
    this.connection.stream.pause();
    this.stallTimer = setTimeout(() => {
      this.destroy(new Error(`export stalled: the reader took nothing for ${this.limits.stallTimeoutMs} ms`));
    }, this.limits.stallTimeoutMs);
  }

  private resumeSocket(): void {
    if (!this.socketPaused || !this.connection) return;
    this.socketPaused = false;
    clearTimeout(this.stallTimer);
    this.connection.stream.resume();
  }
}
