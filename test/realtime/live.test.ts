import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveHandlers } from '../../src/realtime/handlers/live.js';
import { LIVE_BETS_ROOM, liveDropRoom } from '../../src/shared/rooms.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';

let env: RealtimeEnv;
const fields = (ack: object): string[] => (((ack as { details?: unknown }).details ?? []) as { field: string }[]).map((d) => d.field);

beforeAll(async () => {
  env = await createRealtimeEnv('rt_live', { publisher: false, handlers: () => liveHandlers() });
});
afterAll(async () => {
  await env?.close();
});

/**
 * Whether the client is in the room: a marker published to the room after a probe to a room it is
 * surely in (its own). Events on one socket arrive in order, so once the probe is there the marker
 * would have been too.
 */
let probes = 0;
const receivesIn = async (clients: TestClient[], room: string, event: string): Promise<boolean[]> => {
  probes += 1;
  const mark = `mark-${probes}`;
  await env.bus.publish(event, { room, payload: { mark } });
  await env.bus.publish('Probe', { payload: { mark } });
  await Promise.all(clients.map((c) => c.waitFor<{ mark: string }>('Probe', (p) => p.mark === mark)));
  return clients.map((c) => c.all(event).some((r) => (r.payload as { mark?: string }).mark === mark));
};

describe('LiveDropJoin / LiveDropLeave', () => {
  it("when an anonymous socket joins a slug, then it gets that slug's feed and not another's; after leaving, nothing", async () => {
    const inside = await env.connect();
    const outside = await env.connect();
    expect(await inside.ack('LiveDropJoin', { slug: 'sweet-bonanza' })).toEqual({
      status: 200,
      data: { room: liveDropRoom('sweet-bonanza') },
    });
    expect(await outside.ack('LiveDropJoin', { slug: 'gates-of-olympus' })).toEqual({
      status: 200,
      data: { room: liveDropRoom('gates-of-olympus') },
    });
    expect(await receivesIn([inside, outside], liveDropRoom('sweet-bonanza'), 'LiveDrop')).toEqual([true, false]);

    expect(await inside.ack('LiveDropLeave', { slug: 'sweet-bonanza' })).toEqual({
      status: 200,
      data: { room: liveDropRoom('sweet-bonanza') },
    });
    expect(await receivesIn([inside], liveDropRoom('sweet-bonanza'), 'LiveDrop')).toEqual([false]);
    inside.close();
    outside.close();
  });

  it('when an authenticated socket joins, then it works the same', async () => {
    const { accessToken } = await env.signedIn();
    const c = await env.connect({ token: accessToken });
    await c.waitFor('AuthSuccess');
    expect(await c.ack('LiveDropJoin', { slug: 'dice' })).toMatchObject({ status: 200 });
    expect(await receivesIn([c], liveDropRoom('dice'), 'LiveDrop')).toEqual([true]);
    c.close();
  });

  it.each([
    ['no slug', {}],
    ['an upper-case slug', { slug: 'Sweet-Bonanza' }],
    ['a slug with a colon (another room)', { slug: 'x:y' }],
    ['an empty slug', { slug: '' }],
    ['a slug of 101 characters', { slug: 'a'.repeat(101) }],
    ['a numeric slug', { slug: 42 }],
  ])('when the payload has %s, then 400 VALIDATION_FAILED on data.slug and no room is joined', async (_name, data) => {
    const c = await env.connect();
    const ack = await c.ack('LiveDropJoin', data);
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(fields(ack)).toContain('data.slug');
    expect(await c.ack('LiveDropLeave', data)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    c.close();
  });
});

describe('LiveBetsJoin / LiveBetsLeave', () => {
  it('when a socket joins the live bets, then it gets LatestBets sent to that room and a socket that did not join does not', async () => {
    const inside = await env.connect();
    const outside = await env.connect();
    expect(await inside.ack('LiveBetsJoin', {})).toEqual({ status: 200, data: { room: LIVE_BETS_ROOM } });
    expect(await receivesIn([inside, outside], LIVE_BETS_ROOM, 'LatestBets')).toEqual([true, false]);
    expect(await inside.ack('LiveBetsLeave')).toEqual({ status: 200, data: { room: LIVE_BETS_ROOM } });
    expect(await receivesIn([inside, outside], LIVE_BETS_ROOM, 'LatestBets')).toEqual([false, false]);
    inside.close();
    outside.close();
  });

  it('when joined without a payload or through the generic message, then it is joined too', async () => {
    const c = await env.connect();
    expect(await c.ack('LiveBetsJoin')).toEqual({ status: 200, data: { room: LIVE_BETS_ROOM } });
    expect(await c.ack('message', { event: 'LiveBetsLeave', data: {}, isAck: true })).toEqual({
      status: 200,
      data: { room: LIVE_BETS_ROOM },
    });
    expect(await receivesIn([c], LIVE_BETS_ROOM, 'LatestBets')).toEqual([false]);
    expect(await c.ack('message', { event: 'LiveBetsJoin', isAck: true })).toEqual({ status: 200, data: { room: LIVE_BETS_ROOM } });
    expect(await receivesIn([c], LIVE_BETS_ROOM, 'LatestBets')).toEqual([true]);
    c.close();
  });

  it('when the payload is not an object, then 400 VALIDATION_FAILED', async () => {
    const c = await env.connect();
    expect(await c.ack('LiveBetsJoin', 'all')).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await receivesIn([c], LIVE_BETS_ROOM, 'LatestBets')).toEqual([false]);
    c.close();
  });
});
