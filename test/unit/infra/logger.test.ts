import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../src/http/http-errors.js';
import { createLogger, unredacted } from '../../../src/infra/logger.js';

/** A destination that keeps every line. */
const capture = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
};

describe('log lines', () => {
  it('when a line carries a secret under a redacted key, then the secret never reaches the destination', () => {
    const { lines, destination } = capture();
    createLogger({ destination })
      .child({ reqId: 'r1' })
      .info({ body: { password: 'hunter2', user: { token: 't0k' } } }, 'x');
    expect(JSON.stringify(lines)).not.toMatch(/hunter2|t0k/);
    expect(lines[0]).toMatchObject({ name: 'casino-ledger', reqId: 'r1', body: { password: '[REDACTED]', user: { token: '[REDACTED]' } } });
  });

  it('when the unredacted sibling logs, then it writes to the same destination at the same level with the same bindings', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination, level: 'warn' }).child({ role: 'api' });
    const sibling = unredacted(logger);
    sibling.info({ a: 1 }, 'below the level');
    sibling.warn({ a: 2 }, 'kept');
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', name: 'casino-ledger', role: 'api', a: 2, msg: 'kept' })]);
    expect(typeof lines[0]!.time).toBe('string');
  });

  it('when a request is answered, then one line names it and what the handler logged is still redacted', async () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination });
    const app = express();
    app.use(requestContext(logger));
    app.post('/things', (req, res) => {
      req.log.info({ secret: 's3cr3t' }, 'handler line');
      res.status(201).json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/things?page=2`, { method: 'POST', headers: { 'x-request-id': 'req-42' } });
      expect(res.status).toBe(201);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(JSON.stringify(lines)).not.toMatch(/s3cr3t/);
    const completed = lines.find((l) => l.msg === 'request completed');
    expect(completed).toMatchObject({
      level: 'info',
      name: 'casino-ledger',
      reqId: 'req-42',
      method: 'POST',
      url: '/things?page=*',
      statusCode: 201,
    });
    expect(typeof completed!.durationMs).toBe('number');
    expect(lines.find((l) => l.msg === 'handler line')).toMatchObject({ reqId: 'req-42', secret: '[REDACTED]' });
  });
});

describe('stdout in blocks', () => {
  /** A process logging to its real stdout: it logs what the parent sends on stdin, and exits on `exit`. */
  const child = () => {
    const logger = pathToFileURL(join(import.meta.dirname, '../../../src/infra/logger.ts')).href;
    const script = `
      import { createLogger } from '${logger}';
      import { createInterface } from 'node:readline';
      const log = createLogger();
      createInterface({ input: process.stdin }).on('line', (line) => {
        const [level, msg] = line.split(' ');
        if (level === 'exit') { log.info('last line'); process.exit(0); }
        log[level](msg);
      });`;
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const seen: string[] = [];
    const waiters: (() => void)[] = [];
    createInterface({ input: proc.stdout }).on('line', (line) => {
      seen.push((JSON.parse(line) as { msg: string }).msg);
      waiters.splice(0).forEach((w) => w());
    });
    const arrived = async (msg: string): Promise<void> => {
      while (!seen.includes(msg)) await new Promise<void>((r) => waiters.push(r));
    };
    const exited = new Promise((r) => proc.once('exit', r));
    return { send: (line: string) => proc.stdin.write(`${line}\n`), arrived, exited, seen, kill: () => proc.kill('SIGKILL') };
  };

  it('when routine lines and a warning are logged, then each reaches stdout while the process runs, and the rest at exit', async () => {
    const p = child();
    try {
      p.send('info routine-1');
      await p.arrived('routine-1');
      p.send('warn careful');
      await p.arrived('careful');
      p.send('info routine-2');
      p.send('exit');
      await p.exited;
      expect(p.seen).toEqual(['routine-1', 'careful', 'routine-2', 'last line']);
    } finally {
      p.kill();
    }
  }, 20_000);
});
