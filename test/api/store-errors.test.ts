import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler, requestContext } from '../../src/http/http-errors.js';
import { AppendRefused, StoreUnavailable } from '../../src/infra/event-store/event-store.port.js';
import { createLogger } from '../../src/infra/logger.js';

describe('event store failures at the HTTP edge', () => {
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const logger = createLogger({ level: 'silent' });
    const app = express();
    app.use(requestContext(logger));
    app.get('/refused', () => {
      throw new AppendRefused('wallet-1', '22P05', { cause: new Error('unsupported Unicode escape sequence') });
    });
    app.get('/unavailable', () => {
      throw new StoreUnavailable('KurrentDB cannot take the append to wallet-1 (NotLeaderError)');
    });
    app.use(errorHandler(logger));
    const server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((r) => server.close(() => r()));
  });
  afterAll(() => close());

  it("when the store refuses one command's data, then that caller gets 400 UNSTORABLE_VALUE without the store's message", async () => {
    const res = await fetch(`${base}/refused`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ statusCode: 400, code: 'UNSTORABLE_VALUE' });
    expect(JSON.stringify(body)).not.toMatch(/22P05|Unicode|wallet-1/);
  });

  it('when the store cannot take writes (no leader, outage), then 503 EVENT_STORE_UNAVAILABLE, never 500', async () => {
    const res = await fetch(`${base}/unavailable`);
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toMatchObject({ statusCode: 503, code: 'EVENT_STORE_UNAVAILABLE' });
    expect(JSON.stringify(body)).not.toMatch(/NotLeaderError|wallet-1/);
  });
});
