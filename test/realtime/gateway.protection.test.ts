import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ClientEventHandler } from '../../src/realtime/protocol.js';
import { createRealtimeEnv, FRONTEND, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';

const echo: ClientEventHandler = {
  event: 'TestEcho',
  access: 'optional',
  schema: z.object({ text: z.string() }),
  handle: async (data: { text: string }) => ({ text: data.text }),
};

/** The HTTP answer to a bare websocket upgrade of engine.io (what any client gets before socket.io speaks). */
const rawUpgrade = (port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/socket.io/?EIO=4&transport=websocket',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, body: '' });
    });
    req.on('error', reject);
    req.end();
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('realtime gateway: protection', () => {
  let env: RealtimeEnv;
  const TTL = 2_000;
  const BLOCK = 6_000;

  beforeAll(async () => {
    env = await createRealtimeEnv('gw_protect', {
      publisher: false,
      gateways: 2,
      handlers: () => [echo],
      ws: {
        throttlerLimit: 240,
        throttlerTtlMs: TTL,
        throttlerBlockDurationMs: BLOCK,
        maxConnectionsPerIp: 3,
        clientMessageMaxLen: 2_048,
        maxQueuedPackets: 20,
      },
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  describe('message throttle per client address', () => {
    it('when an address sends its 241st message inside the window, then it gets exception "Too many requests" (ack 429) and stays blocked after the window, until the block duration ends', async () => {
      const address = env.newAddress();
      const c = await env.connect({ address });
      for (let i = 0; i < 239; i += 1) c.socket.emit('TestEcho', { text: String(i) });
      expect(await c.ack('TestEcho', { text: '240th' })).toEqual({ status: 200, data: { text: '240th' } });
      expect(c.all('exception')).toEqual([]);
      expect(await c.ack('TestEcho', { text: '241st' })).toEqual({ status: 429, code: 'TOO_MANY_REQUESTS', message: 'Too many requests' });
      expect(await c.waitFor('exception')).toEqual({ status: 'error', message: 'Too many requests' });
      expect(c.all('exception')).toHaveLength(1);

      // The address, not the socket: a new socket from it is refused too, also on the other gateway; another address is not.
      const sibling = await env.connect({ address, gateway: 1 });
      expect(await sibling.ack('TestEcho', { text: 'x' })).toMatchObject({ status: 429 });
      const other = await env.connect({ address: env.newAddress() });
      expect(await other.ack('TestEcho', { text: 'x' })).toMatchObject({ status: 200 });

      // The sliding window has passed; the block has not.
      await sleep(TTL + 500);
      expect(await c.ack('TestEcho', { text: 'after window' })).toMatchObject({ status: 429, message: 'Too many requests' });
      // After the block duration the address may talk again.
      await env.eventually(
        async () => expect(await c.ack('TestEcho', { text: 'free' })).toEqual({ status: 200, data: { text: 'free' } }),
        BLOCK + 5_000,
      );
      expect(c.socket.connected).toBe(true);
      [c, sibling, other].forEach((s) => s.close());
    });
  });

  describe('parallel connections per client address', () => {
    it('when an address opens more sockets than allowed (over both gateways), then the next socket gets connect_error "Too many connections" and is closed without a slot; closing one frees a slot', async () => {
      const address = env.newAddress();
      const open: TestClient[] = [];
      for (let i = 0; i < 3; i += 1) open.push(await env.connect({ address, gateway: i % 2 }));
      const before = env.gateways[0]!.socketCount();
      const engine = env.gateways[0]!.events.server.engine;
      const connectionsBefore = engine.clientsCount;

      for (const gateway of [0, 1]) {
        const refused = await env.connectError({ address, gateway });
        expect(refused.message).toBe('Too many connections');
        expect(refused.data).toEqual({ status: 'error', message: 'Too many connections' });
      }
      // Refused many times over: still no slot is held by any of them, and no socket exists for them.
      for (let i = 0; i < 5; i += 1) expect((await env.connectError({ address })).message).toBe('Too many connections');
      expect(env.gateways[0]!.socketCount()).toBe(before);
      // The raw upgrade is accepted (the reason travels inside socket.io), and the server closes it.
      expect((await rawUpgrade(env.gateways[0]!.port, { origin: FRONTEND, 'x-forwarded-for': address })).status).toBe(101);
      // Every refused connection is closed by the server (the clients above do not close theirs).
      await env.eventually(() => expect(engine.clientsCount).toBe(connectionsBefore));

      open.pop()!.close();
      await env.eventually(async () => {
        const again = await env.connect({ address });
        open.push(again);
      });
      expect(open.every((c) => c.socket.connected)).toBe(true);
      // The slot freed above is taken again: the next one is refused once more.
      expect((await env.connectError({ address, gateway: 1 })).message).toBe('Too many connections');
      open.forEach((c) => c.close());
    });
  });

  describe('Origin of the upgrade', () => {
    it('when the Origin is not an allowed one, then the upgrade is refused (no cross-site websocket hijacking with cookies)', async () => {
      const { accessToken } = await env.signedIn();
      const refused = await env.connectError({
        origin: 'http://evil.test',
        cookies: { access_token: accessToken },
        address: env.newAddress(),
      });
      expect(refused.message).toBe('websocket error');
      const raw = await rawUpgrade(env.gateways[0]!.port, {
        origin: 'http://evil.test',
        cookie: `access_token=${accessToken}`,
        'x-forwarded-for': env.newAddress(),
      });
      expect(raw).toEqual({ status: 400, body: 'Origin not allowed' });
      const allowed = await rawUpgrade(env.gateways[0]!.port, { origin: FRONTEND, 'x-forwarded-for': env.newAddress() });
      expect(allowed.status).toBe(101);
    });

    it('when long polling is tried, then it is refused: websocket only', async () => {
      const res = await fetch(`http://127.0.0.1:${env.gateways[0]!.port}/socket.io/?EIO=4&transport=polling`, {
        headers: { origin: FRONTEND },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 0, message: 'Transport unknown' });
    });
  });

  describe('maximum message size', () => {
    it('when a client sends a message larger than WS_CLIENT_MESSAGE_MAX_LEN, then the gateway closes its connection; smaller messages pass', async () => {
      const c = await env.connect({ address: env.newAddress() });
      expect(await c.ack('TestEcho', { text: 'x'.repeat(1_900) })).toMatchObject({ status: 200 });
      c.socket.emit('TestEcho', { text: 'x'.repeat(2_100) });
      expect(await c.disconnected()).toBe('transport close');
      expect(env.gateways[0]!.events.sockets.has(c.socket.id ?? '')).toBe(false);
    });
  });

  describe('slow consumers', () => {
    it('when a client stops reading, then its outgoing queue passes WS_MAX_QUEUED_PACKETS and it is dropped; a reading client gets everything', async () => {
      const slowUser = await env.signedIn();
      const fastUser = await env.signedIn();
      const slow = await env.connect({ token: slowUser.accessToken, address: env.newAddress() });
      const fast = await env.connect({ token: fastUser.accessToken, address: env.newAddress() });
      await slow.waitFor('AuthSuccess');
      await fast.waitFor('AuthSuccess');
      const slowId = slow.socket.id!;
      // Stop reading the TCP connection: the kernel buffers fill, then engine.io's queue grows.
      const engine = slow.socket.io.engine as unknown as { transport: { ws: { _socket: { pause(): void; resume(): void } } } };
      engine.transport.ws._socket.pause();
      const chunk = 'x'.repeat(256 * 1024);
      let sent = 0;
      await env.eventually(async () => {
        for (let i = 0; i < 10; i += 1) {
          await env.bus.publish('ProfileUpdated', { userId: slowUser.user.id, payload: { chunk, i: sent } });
          await env.bus.publish('ProfileUpdated', { userId: fastUser.user.id, payload: { i: sent } });
          sent += 1;
        }
        expect(env.gateways[0]!.events.sockets.has(slowId)).toBe(false);
      }, 20_000);
      expect(env.gateways[0]!.events.sockets.has(fast.socket.id!)).toBe(true);
      await env.eventually(() => expect(fast.all('ProfileUpdated')).toHaveLength(sent));
      expect(fast.all('ProfileUpdated').map((r) => (r.payload as { i: number }).i)).toEqual([...Array(sent).keys()]);
      engine.transport.ws._socket.resume();
      await slow.disconnected();
      expect(slow.all('ProfileUpdated').length).toBeLessThan(sent);
      fast.close();
    });
  });
});
