import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import type pg from 'pg';
import type { Writable } from 'node:stream';
import { loadSymmetricKey } from '../../infra/secrets.js';
import type { EventStore } from '../../infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../../infra/pg.js';
import { EXPORT_FORMATS, EXPORT_KINDS, ExportRangeError, exportToFile, runExport, type ExportFormat, type ExportKind } from '../export.js';
import { houseBalances, parseKnownAt, parsePointInTime, replayUser, type PointInTime } from '../balance-replay.js';
import { verifyLedger, type VerifyProgress } from '../verify.js';
import { houseText, replayText, verifyText } from './format.js';
import { runPeriodsCommand } from './periods-cli.js';
import { runFinanceCommand } from './finance-cli.js';
import { verifyOpenPeriod } from '../verify.open-period.js';
import { formatDifference } from '../verify.fold.js';

/** The name the service keeps a generated seal key under, in DATA_DIR/keys. */
export const SEAL_KEY_NAME = 'ledger-seal';

export const USAGE = `usage: npm run ledger -- <command> [options]

commands
  replay --user <id> [--at <point>] [--known-at <time>]
                                      a user's balance per currency at that point and the movements that led there,
                                      folded from the wallet stream alone (never from read models)
  balance [--at <point>] [--known-at <time>]
                                      every account's balance per currency and the trial balance, from the postings
                                      of every event; exits 1 when a currency does not sum to zero
  verify [--no-seals]                 folds every stream and compares: postings, balanceAfter, stream revisions and
                                      heads, the trial balance, the read models, the seals, the snapshots and each
                                      closed period's report; lists every difference and exits 1 when there is any
  verify --open-period                each closed period once (remembered with the seal key), then only the events
                                      since the last close, from its closing balances: postings, amounts,
                                      balanceAfter, the trial balance, the snapshots
  export --kind <kind> [--format csv|ndjson] [--from <time>] [--to <time>] [--known-from <time>] [--known-to <time>]
         [--out <file>]               a read model as CSV (default) or NDJSON, business time (effectiveAt) in
                                      [from, to), recording time (createdAt) in [known-from, known-to); kinds:
                                      ${EXPORT_KINDS.join(', ')}. With --out: the file and <file>.manifest.json
                                      (rows, bytes, sha256); without: the rows on stdout, the summary on stderr
  periods                             the calendar the books close by, the closed periods and the next to close
  close --period <P> --admin <id>     closes period P (YYYY-MM, or YYYY-MM-DD by day) on behalf of SuperAdmin <id>:
                                      waits for the projector to write the closing report, seals it with the seal key
  report --period <P>                 a closed period's report and the closing balance of every account
  finance --report <name> (--period <P> | --from <day> --to <day>) [--group-by <g>] [--user <id>]
                                      a finance report as CSV on stdout (rows, sha256 on stderr) or --json:
                                      trial-balance, liability (--period), gaming (--group-by day|game|provider|
                                      currency), payments (--group-by day|provider), adjustments, statement (--user);
                                      days are business days in the ledger time zone, from and to inclusive
  help                                this text

options
  --at <point>        BUSINESS TIME: an ISO 8601 timestamp with a zone (events whose business time, effectiveAt, is at
                      or before it, whenever they were recorded), or a global position "commit/prepare" (events at or
                      before it, in recording order); default: everything up to now
  --known-at <time>   RECORDING TIME: an ISO 8601 timestamp with a zone; only events the ledger had recorded at or
                      before it. With --at: the balance as of --at as the ledger knew it at --known-at
  --from, --to        export: BUSINESS TIME (effectiveAt), ISO 8601 with a zone; from inclusive, to exclusive
  --known-from, --known-to
                      export: RECORDING TIME (createdAt), ISO 8601 with a zone; known-from inclusive, known-to exclusive
  --json              machine-readable output on stdout
  --progress          a progress bar on stderr even when stderr is not a terminal (it is shown on a terminal anyway)
  --schema <name>     the PostgreSQL schema holding the ledger (default: the connection's search_path)
  --batch-size <n>    events per read (default 5000)

environment
  DATABASE_URL (required)   the PostgreSQL holding the event store (default store) and the read models
  EVENT_STORE, EVENTSTORE_CONNECTION_STRING   as for the service: eventstoredb reads the events from KurrentDB
  LEDGER_SEAL_KEY, DATA_DIR                   the seal key for verify (LEDGER_SEAL_KEY, else DATA_DIR/keys/${SEAL_KEY_NAME}.key)
  LEDGER_SEAL_CHECKPOINT_EVERY                the sealer's checkpoint interval (verify reports checkpoints removed)

exit codes: 0 clean, 1 differences (verify) or a trial balance off zero (balance), 2 usage, configuration or connection error`;

export type CliIo = Readonly<{
  out: (line: string) => void;
  stdout: Writable;
  err: (line: string) => void;
  progressStream: NodeJS.WritableStream & { isTTY?: boolean };
}>;

class UsageError extends Error {
  override readonly name = 'UsageError';
}

const positiveInt = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer`);
  return n;
};

const pointOf = (value: string | undefined): PointInTime => {
  const p = parsePointInTime(value);
  if ('error' in p) throw new UsageError(`--at ${p.error}`);
  return p;
};

const knownAtOf = (value: string | undefined): Date | undefined => {
  const t = parseKnownAt(value);
  if (t && 'error' in t) throw new UsageError(`--known-at ${t.error}`);
  return t;
};

const openStore = async (env: NodeJS.ProcessEnv, pool: pg.Pool): Promise<EventStore> => {
  if ((env.EVENT_STORE ?? 'postgres') === 'postgres') return createPostgresEventStore({ pool });
  if (env.EVENT_STORE !== 'eventstoredb') throw new UsageError('EVENT_STORE must be postgres or eventstoredb');
  if (!env.EVENTSTORE_CONNECTION_STRING) throw new UsageError('EVENTSTORE_CONNECTION_STRING is required when EVENT_STORE=eventstoredb');
  const { createKurrentDbEventStore } = await import('../../infra/event-store/kurrentdb.event-store.js');
  return createKurrentDbEventStore({ connectionString: env.EVENTSTORE_CONNECTION_STRING });
};

/** The seal key the service uses; never generated here (a new key would call every checkpoint forged). */
const sealKey = async (env: NodeJS.ProcessEnv): Promise<Buffer> => {
  if (env.LEDGER_SEAL_KEY)
    return loadSymmetricKey(env.LEDGER_SEAL_KEY, '', 'LEDGER_SEAL_KEY').catch((e: unknown) => {
      throw new UsageError((e as Error).message);
    });
  const file = join(env.DATA_DIR || './.data', 'keys', `${SEAL_KEY_NAME}.key`);
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  } catch {
    throw new UsageError(`no seal key: set LEDGER_SEAL_KEY (or DATA_DIR to where ${SEAL_KEY_NAME}.key lives), or pass --no-seals`);
  }
};

const progressBar = (io: CliIo, wanted: boolean) => {
  if (!wanted) return { update: (_p: VerifyProgress) => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: io.progressStream,
      format: '{phase} [{bar}] {value}/{total} | {percentage}% | {eta_formatted} left',
      hideCursor: true,
      noTTYOutput: !io.progressStream.isTTY,
      notTTYSchedule: 2_000,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let phase: string | undefined;
  return {
    update: (p: VerifyProgress) => {
      const total = p.total ?? p.done;
      if (p.phase !== phase) {
        if (phase !== undefined) bar.stop();
        phase = p.phase;
        bar.start(total, p.done, { phase: p.phase });
      } else bar.update(p.done, { phase: p.phase });
      bar.setTotal(Math.max(total, p.done));
    },
    stop: () => {
      if (phase !== undefined) bar.stop();
      phase = undefined;
    },
  };
};

/** An error in one line; a refused connection is an AggregateError with an empty message. */
const describe = (error: unknown): string => {
  const e = error as { message?: string; code?: string; errors?: unknown[] };
  if (e.message) return e.message;
  if (Array.isArray(e.errors) && e.errors.length > 0) return e.errors.map(describe).join('; ');
  return e.code ?? String(error);
};

const json = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);

export const runLedgerCli = async (argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        user: { type: 'string' },
        at: { type: 'string' },
        'known-at': { type: 'string' },
        'known-from': { type: 'string' },
        'known-to': { type: 'string' },
        kind: { type: 'string' },
        format: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean' },
        progress: { type: 'boolean' },
        schema: { type: 'string' },
        'batch-size': { type: 'string' },
        'no-seals': { type: 'boolean' },
        'open-period': { type: 'boolean' },
        period: { type: 'string' },
        admin: { type: 'string' },
        report: { type: 'string' },
        'group-by': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const command = positionals[0];
  if (command === 'help' || values.help) {
    io.out(USAGE);
    return 0;
  }
  if (!command) {
    io.err(USAGE);
    return 2;
  }
  if (!['replay', 'balance', 'verify', 'export', 'periods', 'close', 'report', 'finance'].includes(command) || positionals.length > 1) {
    io.err(`unknown command: ${positionals.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  if (!env.DATABASE_URL) {
    io.err('DATABASE_URL is not set: point it at the PostgreSQL that holds the event store and the read models.');
    return 2;
  }
  let pool: pg.Pool | undefined;
  let store: EventStore | undefined;
  try {
    const batchSize = positiveInt(values['batch-size'], '--batch-size');
    if (values.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(values.schema))
      throw new UsageError('--schema must be a plain schema name');
    const userId = command === 'replay' ? positiveInt(values.user, '--user') : undefined;
    if (command === 'replay' && userId === undefined) throw new UsageError('replay needs --user <id>');
    const point = pointOf(values.at);
    const knownAt = knownAtOf(values['known-at']);
    if (command === 'verify' && (values.at !== undefined || knownAt))
      throw new UsageError('verify checks the whole ledger: --at and --known-at are not accepted');
    if (command === 'export') {
      if (!(EXPORT_KINDS as readonly string[]).includes(values.kind ?? ''))
        throw new UsageError(`export needs --kind, one of ${EXPORT_KINDS.join(', ')}`);
      if (!(EXPORT_FORMATS as readonly string[]).includes(values.format ?? 'csv'))
        throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    }
    if ((command === 'close' || command === 'report') && values.period === undefined) throw new UsageError(`${command} needs --period <P>`);
    const adminUserId = command === 'close' ? positiveInt(values.admin, '--admin') : undefined;
    if (command === 'close' && adminUserId === undefined) throw new UsageError('close needs --admin <id>: the SuperAdmin it is done for');
    const key = (command === 'verify' || command === 'close') && !values['no-seals'] ? await sealKey(env) : undefined;
    pool = createPool({
      connectionString: env.DATABASE_URL,
      max: 4,
      applicationName: 'ledger-audit',
      idleInTransactionTimeoutMs: 0,
      ...(values.schema ? { schema: values.schema } : {}),
    });
    pool.on('error', () => undefined);
    store = await openStore(env, pool);
    const bar = progressBar(io, Boolean(values.progress) || Boolean(io.progressStream.isTTY));
    try {
      switch (command) {
        case 'finance':
          return await runFinanceCommand(
            pool,
            {
              report: values.report,
              period: values.period,
              from: values.from,
              to: values.to,
              groupBy: values['group-by'],
              userId: positiveInt(values.user, '--user'),
              json: Boolean(values.json),
            },
            io,
          );
        case 'periods':
        case 'close':
        case 'report':
          return await runPeriodsCommand(
            command,
            {
              pool,
              store,
              json: Boolean(values.json),
              ...(values.period === undefined ? {} : { period: values.period }),
              ...(adminUserId === undefined ? {} : { adminUserId }),
              ...(key ? { sealKey: key } : {}),
            },
            io,
          );
        case 'replay': {
          const replay = await replayUser({ store }, userId!, point, knownAt);
          (values.json ? [json(replay)] : replayText(replay)).forEach((l) => io.out(l));
          return 0;
        }
        case 'export': {
          const options = {
            pool,
            kind: values.kind as ExportKind,
            format: (values.format ?? 'csv') as ExportFormat,
            from: values.from,
            to: values.to,
            knownFrom: values['known-from'],
            knownTo: values['known-to'],
            ...(batchSize ? { batchSize } : {}),
          };
          if (values.out) {
            const file = await exportToFile({ ...options, file: values.out });
            io.out(
              `exported ${file.rows} ${options.kind} rows (${file.bytes} bytes, sha256 ${file.sha256}) to ${file.file}; manifest ` +
                `${file.manifestFile}`,
            );
          } else {
            const result = await runExport({ ...options, output: io.stdout, end: false });
            io.err(`exported ${result.rows} ${options.kind} rows (${result.bytes} bytes, sha256 ${result.sha256})`);
          }
          return 0;
        }
        case 'balance': {
          const house = await houseBalances({ store }, point, {
            knownAt,
            ...(batchSize ? { batchSize } : {}),
            onProgress: (read) => bar.update({ phase: 'events', done: read, total: undefined }),
          });
          bar.stop();
          (values.json ? [json(house)] : houseText(house)).forEach((l) => io.out(l));
          if (!house.balanced)
            io.err(
              `TRIAL BALANCE IS NOT ZERO: ${house.trial
                .filter((t) => t.amount !== '0')
                .map((t) => `${t.amount} ${t.currencyId}`)
                .join(', ')}`,
            );
          if (house.problems.length > 0) io.err(`${house.problems.length} events have unreadable postings`);
          return house.balanced && house.problems.length === 0 ? 0 : 1;
        }
        default: {
          if (values['open-period']) {
            const open = await verifyOpenPeriod({ pool, store, key, ...(batchSize ? { batchSize } : {}) });
            if (values.json) io.out(json(open));
            else {
              for (const d of open.differences) io.out(formatDifference(d));
              io.out(
                `the open period since ${open.since ?? 'the beginning'}: ` +
                  `${open.events} events in ${open.streams} streams up to ${open.head}; ` +
                  `${open.ok ? 'OK' : `FAILED: ${open.differences.length} differences`}`,
              );
            }
            return open.ok ? 0 : 1;
          }
          const every = positiveInt(env.LEDGER_SEAL_CHECKPOINT_EVERY, 'LEDGER_SEAL_CHECKPOINT_EVERY');
          const report = await verifyLedger({
            store,
            pool,
            ...(batchSize ? { batchSize } : {}),
            onProgress: bar.update,
            seals: key ? { key, ...(every ? { checkpointEvery: every } : {}) } : false,
          });
          bar.stop();
          (values.json ? [json(report)] : verifyText(report)).forEach((l) => io.out(l));
          return report.ok ? 0 : 1;
        }
      }
    } finally {
      bar.stop();
    }
  } catch (error) {
    if (error instanceof ExportRangeError) io.err(`--${error.field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${error.message}`);
    else io.err(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `ledger ${command} failed: ${describe(error)}`);
    return 2;
  } finally {
    await store?.close().catch(() => undefined);
    await pool?.end().catch(() => undefined);
  }
};
