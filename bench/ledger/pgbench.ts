/** pgbench scripts: what the server alone spends on an INSERT, a group-commit append and a follow read. */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { appendStatement, leanAppendStatement, soloAppendStatement } from '../../src/infra/event-store/postgres/postgres.append.sql.js';
import { round } from '../lib/stats.js';
import { DATABASE_URL, EVENT_DATA, SECONDS } from './settings.js';

const run = promisify(execFile);

/** pgbench over `sql` for SECONDS in `schema`, `-M prepared`, the event JSON bound as :data; undefined when it fails. */
export const pgbenchRun = async (
  schema: string,
  sql: string,
  clients: number,
  settings: readonly string[] = [],
  mode: 'prepared' | 'simple' = 'prepared',
): Promise<{ tps: number; latencyMs: number } | undefined> => {
  const script = join(tmpdir(), `bench-${process.pid}-${Math.random().toString(36).slice(2)}.sql`);
  await writeFile(script, `${sql}\n`);
  try {
    // The event JSON goes in as a bound variable: pgbench would read its "...:45..." as variable names.
    const args = ['-n', '-M', mode, '-D', `data=${EVENT_DATA}`, '-c', String(clients), '-j', String(Math.min(2, clients))];
    const options = [`-c search_path=${schema}`, ...settings.map((x) => `-c ${x}`)].join(' ');
    const { stdout } = await run('pgbench', [...args, '-T', String(SECONDS), '-f', script, DATABASE_URL], {
      env: { ...process.env, PGOPTIONS: options },
    });
    return {
      tps: round(Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0), 0),
      latencyMs: Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? 0),
    };
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? error);
    console.log('pgbench failed: %s', stderr.split('\n').slice(0, 3).join(' '));
    return undefined;
  } finally {
    await rm(script, { force: true });
  }
};

/** A statement with its parameters written in as pgbench expressions, on one line. */
const inlined = (text: string, params: readonly string[]): string =>
  `${text.replace(/\$(\d+)/g, (_, k: string) => `(${params[Number(k) - 1]!})`).replace(/\s+/g, ' ')};`;

/** A group commit's parameters for `n` one-event commands with their keys, given each request's stream, kind and revision. */
const groupParams = (n: number, stream: (i: number) => string, kind: string, expected: (i: number) => string): string[] => {
  const each = (f: (i: number) => string): string => `ARRAY[${Array.from({ length: n }, (_, i) => f(i)).join(', ')}]`;
  return [
    each(stream),
    each(() => kind),
    each(expected),
    each(() => '1'),
    each((i) => String(i + 1)),
    each(() => '1'),
    each(() => 'gen_random_uuid()'),
    each(() => `'BetPlaced'`),
    `array_to_string(${each(() => ':data')}, chr(1))`,
    `array_to_string(${each(() => `'{}'`)}, chr(1))`,
    each((i) => String(i + 1)),
    each(() => `'bet'`),
    each(() => 'gen_random_uuid()::text'),
    each(() => '1'),
    each(() => 'false'),
  ];
};

/**
 * The store's own append statement (with key claims) for `n` commands of one event each, its parameters written as arrays
 * (the event JSON bound as :data, the documents joined as the store joins them): fresh event ids and keys on every run, and
 * streams among 2,000, so that most appends update a stream's head, as a wallet's do.
 */
export const appendScript = (n: number): string =>
  inlined(
    appendStatement(true, undefined),
    groupParams(
      n,
      (i) => `'pgbench-' || (random() * 499)::int || '-${i}'`,
      `'any'`,
      () => 'NULL',
    ),
  );

/** The streams the exact-revision scripts write: each transaction picks streams at random and reads their heads in the statement. */
export const EXACT_STREAMS = 500;
const headOf = (stream: string): string => `SELECT revision FROM streams WHERE stream_id = ${stream}`;

/** What a group commit of `n` commands whose wallets the process holds sends: the lean statement, or for one the solo statement. */
export const exactScript = (n: number): string => {
  const stream = (i: number): string => `'exact-' || ((:w * ${n} + ${i}) % ${EXACT_STREAMS})`;
  const pick = `\\set w random(0, ${Math.floor(EXACT_STREAMS / n) - 1})\n`;
  if (n === 1) {
    const solo = [
      stream(0),
      headOf(stream(0)),
      'gen_random_uuid()',
      `'BetPlaced'`,
      ':data',
      `'{}'`,
      `'bet'`,
      'gen_random_uuid()::text',
      '1',
    ];
    return pick + inlined(soloAppendStatement(true, undefined), solo);
  }
  return (
    pick +
    inlined(
      leanAppendStatement(true, undefined),
      groupParams(n, stream, `'exact'`, (i) => `(${headOf(stream(i))})`),
    )
  );
};
