import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A real `src/main.ts` process, with the URLs it logged when it listened (ports 0 = any free port). */
export type ServiceProcess = Readonly<{
  name: string;
  child: ChildProcess;
  adminUrl?: string;
  publicUrl?: string;
  gatewayUrl?: string;
  metricsUrl?: string;
  /** Every JSON log line so far. */
  logs: () => readonly Record<string, unknown>[];
  /** The last 200 raw lines of stdout and stderr (an uncaught exception shows there). */
  output: () => string;
  /** Resolves with the exit code (or signal) once the process ended. */
  exited: Promise<number | string>;
  stop: () => Promise<void>;
  kill: () => Promise<void>;
}>;

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export const SERVICE_TEST_ENV: Readonly<Record<string, string>> = {
  PUBLIC_PORT: '0',
  ADMIN_PORT: '0',
  WS_PORT: '0',
  APP_ENV: 'local',
  LOG_LEVEL: 'info',
  INTERNAL_API_TOKEN: 'internal-token-for-tests-0123456789',
  WS_THROTTLER_DISABLE: 'true',
  FRONTEND_ORIGIN: 'http://localhost:5173',
  WS_MAX_CONNECTIONS_PER_IP: '1000',
  AUTH_MAX_FAILURES_PER_ADDRESS: '100000',
};

/**
 * Starts `node --import tsx src/main.ts` (or `command` with `args`) and waits for its `ready` line. One process, no
 * wrapper: a signal (SIGKILL above all) reaches the service itself, never leaving it orphaned. A process that exits
 * first rejects with its last log lines. Whatever is still running when the caller's process exits is killed.
 */
export const startService = async (
  name: string,
  env: Readonly<Record<string, string>>,
  opts: Readonly<{ command?: string; args?: string[]; cwd?: string; readyTimeoutMs?: number; uid?: number; gid?: number }> = {},
): Promise<ServiceProcess> => {
  const child = spawn(opts.command ?? process.execPath, opts.args ?? ['--import', 'tsx', 'src/main.ts'], {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid === undefined ? {} : { uid: opts.uid }),
    ...(opts.gid === undefined ? {} : { gid: opts.gid }),
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const urls: { adminUrl?: string; publicUrl?: string; gatewayUrl?: string; metricsUrl?: string } = {};
  let buffer = '';
  let onReady: (() => void) | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      raw.push(line);
      if (raw.length > 200) raw.shift();
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (entry.msg !== 'request completed') lines.push(entry); // one per request: not worth keeping
      if (lines.length > 5_000) lines.shift();
      const url = typeof entry.url === 'string' ? entry.url : undefined;
      if (url && entry.role === 'admin-api') urls.adminUrl = url;
      if (url && entry.role === 'public-api') urls.publicUrl = url;
      if (url && entry.role === 'gateway') urls.gatewayUrl = url.replace(/^ws:/, 'http:');
      if (url && entry.role === undefined && url.endsWith('/metrics')) urls.metricsUrl = url.replace(/\/metrics$/, '');
      if (entry.msg === 'ready') onReady?.();
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    raw.push(chunk.toString());
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: not ready in time:\n${raw.slice(-20).join('\n')}`)),
      opts.readyTimeoutMs ?? 60_000,
    );
    onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before ready:\n${raw.slice(-20).join('\n')}`));
    });
  });
  const signalAndWait = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return {
    name,
    child,
    ...urls,
    logs: () => lines,
    output: () => raw.join('\n'),
    exited,
    stop: () => signalAndWait('SIGTERM'),
    kill: () => signalAndWait('SIGKILL'),
  };
};

/** Polls `probe` until it returns a value (not undefined) or the time is up; returns undefined on timeout. */
export const waitFor = <T>(probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 50): Promise<T | undefined> =>
  eventually(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('not yet');
      return value;
    },
    timeoutMs,
    everyMs,
  ).catch(() => undefined);
