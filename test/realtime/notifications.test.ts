import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../src/projections/index.js';
import { notificationsProjection } from '../../src/read-models/notifications/notifications.projection.js';
import { MAX_VIEWED_IDS, notificationHandlers } from '../../src/realtime/handlers/notifications.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';
import { must } from '../support/realtime-ledger.js';

let env: RealtimeEnv;
let adminId: number;
const fields = (ack: object): string[] => (((ack as { details?: unknown }).details ?? []) as { field: string }[]).map((d) => d.field);

type Pushed = { id: string; type: string; payload: Record<string, unknown> };
type Listed = Pushed & { createdAt: string; viewed: boolean };

beforeAll(async () => {
  env = await createRealtimeEnv('rt_notifications', { handlers: (auth) => notificationHandlers({ pool: auth.pool }) });
  adminId = (await env.makeUser({ roles: ['Admin'] })).id;
});
afterAll(async () => {
  await env?.close();
});

/** A signed-in socket and its user. */
const signedInClient = async (): Promise<{ c: TestClient; userId: number }> => {
  const { user, accessToken } = await env.signedIn();
  const c = await env.connect({ token: accessToken });
  await c.waitFor('AuthSuccess');
  return { c, userId: user.id };
};

const tip = async (userId: number, amount: string) =>
  must(await env.ledger.tip({ recipientUserId: userId, adminUserId: adminId, currencyId: 'USDT', amount, notes: 'internal' }));

/** Tips the user once per amount and waits until the socket got each notification and NotificationGet lists them all. */
const notified = async (c: TestClient, userId: number, amounts: readonly string[]): Promise<Pushed[]> => {
  for (const amount of amounts) await tip(userId, amount);
  await env.eventually(() => expect(c.all('NotificationEventMessage').length).toBeGreaterThanOrEqual(amounts.length));
  const pushed = c.all('NotificationEventMessage').map((r) => r.payload as Pushed);
  await env.eventually(async () => {
    const ack = await c.ack('NotificationGet', {});
    expect((ack as { data: Listed[] }).data?.length).toBe(pushed.length);
  });
  return pushed;
};

const list = async (c: TestClient, data: unknown = {}): Promise<Listed[]> => {
  const ack = await c.ack('NotificationGet', data);
  if (ack.status !== 200) throw new Error(`NotificationGet: ${JSON.stringify(ack)}`);
  return (ack as { data: Listed[] }).data;
};

describe('NotificationEventMessage and NotificationGet', () => {
  it('when notifications are created, then each is pushed with its position and NotificationGet lists the same ids and payloads, newest first, unread', async () => {
    const { c, userId } = await signedInClient();
    const pushed = await notified(c, userId, ['1', '2', '3']);
    expect(pushed.map((p) => [p.type, p.payload.amount])).toEqual([
      ['ADMIN_TIP_RECEIVED', '1'],
      ['ADMIN_TIP_RECEIVED', '2'],
      ['ADMIN_TIP_RECEIVED', '3'],
    ]);
    expect(c.all('NotificationEventMessage').every((r) => typeof (r.meta as { position?: unknown }).position === 'string')).toBe(true);
    const listed = await list(c);
    expect(listed.map((n) => ({ id: n.id, type: n.type, payload: n.payload }))).toEqual([...pushed].reverse());
    expect(listed.every((n) => n.viewed === false && !Number.isNaN(Date.parse(n.createdAt)))).toBe(true);
    expect((await list(c, { take: 2 })).map((n) => n.id)).toEqual([pushed[2]!.id, pushed[1]!.id]);
    expect((await list(c, undefined)).length).toBe(3); // no data at all: the default take
    c.close();
  });

  it('when another user has notifications, then NotificationGet never shows them', async () => {
    const a = await signedInClient();
    const b = await signedInClient();
    const mine = await notified(a.c, a.userId, ['4']);
    await notified(b.c, b.userId, ['5', '6']);
    expect((await list(a.c)).map((n) => n.id)).toEqual(mine.map((n) => n.id));
    expect(a.c.all('NotificationEventMessage')).toHaveLength(1);
    a.c.close();
    b.c.close();
  });
});

describe('NotificationViewed', () => {
  it('when some ids are marked, then exactly those become viewed; marking again counts nothing; without ids, all the rest', async () => {
    const { c, userId } = await signedInClient();
    const [first, second, third] = await notified(c, userId, ['1', '2', '3']);
    expect(await c.ack('NotificationViewed', { ids: [second!.id] })).toEqual({ status: 200, data: { viewed: 1 } });
    expect(await c.ack('NotificationViewed', { ids: [second!.id] })).toEqual({ status: 200, data: { viewed: 0 } });
    expect(Object.fromEntries((await list(c)).map((n) => [n.id, n.viewed]))).toEqual({
      [first!.id]: false,
      [second!.id]: true,
      [third!.id]: false,
    });
    expect(await c.ack('NotificationViewed', {})).toEqual({ status: 200, data: { viewed: 2 } });
    expect((await list(c)).every((n) => n.viewed)).toBe(true);
    expect(await c.ack('NotificationViewed')).toEqual({ status: 200, data: { viewed: 0 } });
    c.close();
  });

  it("when a user names another user's notification ids, then none is marked and the owner still sees them unread", async () => {
    const owner = await signedInClient();
    const other = await signedInClient();
    const [theirs] = await notified(owner.c, owner.userId, ['7']);
    expect(await other.c.ack('NotificationViewed', { ids: [theirs!.id] })).toEqual({ status: 200, data: { viewed: 0 } });
    expect(await other.c.ack('NotificationViewed', {})).toEqual({ status: 200, data: { viewed: 0 } });
    expect((await list(owner.c)).map((n) => n.viewed)).toEqual([false]);
    owner.c.close();
    other.c.close();
  });

  it('when the notifications read model is rebuilt, then the notifications come back with the same ids and their read marks', async () => {
    const { c, userId } = await signedInClient();
    const [kept, unread] = await notified(c, userId, ['8', '9']);
    expect(await c.ack('NotificationViewed', { ids: [kept!.id] })).toEqual({ status: 200, data: { viewed: 1 } });
    const before = await list(c);
    await rebuildProjections({ store: env.store, pool: env.pool, projections: [notificationsProjection] });
    expect(await list(c)).toEqual(before);
    expect(before.find((n) => n.id === unread!.id)?.viewed).toBe(false);
    c.close();
  });
});

describe('reconnecting with the last position seen', () => {
  it('when a client comes back with its last position, then what it missed is replayed from the store as live delivery gave it, then live resumes', async () => {
    const { user, accessToken } = await env.signedIn();
    // A second socket of the same user stays connected throughout: what live delivery gave.
    const watcher = await env.connect({ token: accessToken });
    await watcher.waitFor('AuthSuccess');
    const first = await env.connect({ token: accessToken });
    await first.waitFor('AuthSuccess');
    await tip(user.id, '1');
    await first.waitFor('NotificationEventMessage');
    const since = (first.all('NotificationEventMessage')[0]!.meta as { position: string }).position;
    first.close();
    await tip(user.id, '2');
    await tip(user.id, '3');
    await watcher.waitFor<Pushed>('NotificationEventMessage', (p) => p.payload.amount === '3');
    const back = await env.connect({ token: accessToken, since });
    expect(await back.waitFor('RecoveryResult')).toMatchObject({ recovered: true });
    const replayed = back.received.filter((r) => (r.meta as { replayed?: boolean } | undefined)?.replayed);
    const amountOf = (payload: unknown): string =>
      (payload as { payload?: { amount: string } }).payload?.amount ?? (payload as { amount: string }).amount;
    expect(replayed.map((r) => [r.event, amountOf(r.payload)])).toEqual([
      ['BalanceUpdated', '3'],
      ['BalanceTippedSuccess', '2'],
      ['NotificationEventMessage', '2'],
      ['BalanceUpdated', '6'],
      ['BalanceTippedSuccess', '3'],
      ['NotificationEventMessage', '3'],
    ]);
    const liveAfter = watcher.received
      .filter((r) => ['BalanceUpdated', 'BalanceTippedSuccess', 'NotificationEventMessage'].includes(r.event))
      .slice(3);
    expect(replayed.map((r) => [r.event, r.payload, (r.meta as { position: string }).position])).toEqual(
      liveAfter.map((r) => [r.event, r.payload, (r.meta as { position: string }).position]),
    );
    await tip(user.id, '4');
    await back.waitFor<Pushed>('NotificationEventMessage', (p) => p.payload.amount === '4');
    expect(back.all('NotificationEventMessage').map((r) => (r.payload as Pushed).payload.amount)).toEqual(['2', '3', '4']);
    back.close();
    watcher.close();
  });
});

describe('errors', () => {
  it.each(['NotificationGet', 'NotificationViewed'])(
    'when an anonymous socket sends %s, then 401 in the acknowledgement and an Unauthorized event',
    async (event) => {
      const c = await env.connect();
      expect(await c.ack(event, {})).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      await c.waitFor('Unauthorized');
      c.close();
    },
  );

  it.each([
    ['NotificationGet', { take: 0 }, 'data.take'],
    ['NotificationGet', { take: 21 }, 'data.take'],
    ['NotificationGet', { take: 'ten' }, 'data.take'],
    ['NotificationGet', { take: 1.5 }, 'data.take'],
    ['NotificationGet', { page: 2 }, 'data'],
    ['NotificationViewed', { ids: ['not-a-uuid'] }, 'data.ids.0'],
    ['NotificationViewed', { ids: [] }, 'data.ids'],
    ['NotificationViewed', { ids: 'all' }, 'data.ids'],
    ['NotificationViewed', { ids: Array.from({ length: MAX_VIEWED_IDS + 1 }, () => '0190a0b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b') }, 'data.ids'],
    ['NotificationViewed', { ids: [42] }, 'data.ids.0'],
  ])('when %s has %j, then 400 VALIDATION_FAILED naming %s', async (event, data, field) => {
    const { c } = await signedInClient();
    const ack = await c.ack(event, data);
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(fields(ack)).toContain(field);
    c.close();
  });
});
