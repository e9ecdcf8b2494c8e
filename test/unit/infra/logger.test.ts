import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../src/http/errors.js';
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
      url: '/things?page=2',
      statusCode: 201,
    });
    expect(typeof completed!.durationMs).toBe('number');
    expect(lines.find((l) => l.msg === 'handler line')).toMatchObject({ reqId: 'req-42', secret: '[REDACTED]' });
  });
});
