import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat, type ChatMessage } from '../../src/commands/chat.js';
import { createLedger } from '../../src/commands/ledger.js';
import type { Permission } from '../../src/domain/user/permissions.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { runLeaderboardTick } from '../../src/leaderboards/leaderboard.scheduler.js';
import { createLogger } from '../../src/infra/logger.js';
import type { Projector } from '../../src/projections/index.js';
import { adminHandlers } from '../../src/realtime/handlers/admin.js';
import { chatHandlers } from '../../src/realtime/handlers/chat.js';
import { bearer, call, type Reply } from '../support/auth-env.js';
import { balanceOf, pendingWithdrawal } from '../support/money-env.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';

let env: RealtimeEnv;
let projector: Projector;
let superToken = '';
const fields = (ack: object): string[] => (((ack as { details?: unknown }).details ?? []) as { field: string }[]).map((d) => d.field);
const ok = async <T>(result: Promise<Either<unknown, T>>): Promise<T> => {
  const r = await result;
  if (isLeft(r)) throw new Error(`refused: ${JSON.stringify(r.left)}`);
  return r.right;
};
const rest = (method: string, path: string, body?: unknown, token = superToken): Promise<Reply> =>
  call(env.adminUrl, method, path, { headers: bearer(token), ...(body === undefined ? {} : { body }) });

/** A socket of a new user with these roles and permissions, after AuthSuccess. */
const adminSocket = async (permissions: Permission[], roles: ('User' | 'Admin' | 'SuperAdmin')[] = ['User', 'Admin']) => {
  const signed = await env.signedIn({ roles, permissions });
  const client = await env.connect({ token: signed.accessToken });
  await client.waitFor('AuthSuccess');
  return { ...signed, client };
};

/** What must not move when an admin event is refused: every event, every moderation, every deleted message, every room limit. */
const footprint = async () => {
  const {
    rows: [r],
  } = await env.pool.query<Record<string, string>>(`SELECT
    (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM chat_moderation) AS moderations,
    (SELECT count(*) FROM chat_messages WHERE deleted_at IS NOT NULL) AS deleted, (SELECT count(*) FROM chat_room_limits) AS limits,
    (SELECT count(*) FROM leaderboard_prize_payments) AS prizes`);
  return r;
};

// ---- a settled leaderboard with winners (the DAILY schedule, bets settled at a known time) ----
const DAY = '2031-03-10';
let now = new Date(`${DAY}T08:00:00.000Z`);
let boardId = '';
const winners: number[] = [];
let nonWinner = 0;
let seq = 0;

const seedLeaderboard = async () => {
  const ledger = createLedger({
    store: env.store,
    pool: env.pool,
    userExists: env.users.exists,
    canTransact: env.users.canTransact,
    clock: () => now,
  });
  const schedules = (await rest('GET', '/leaderboards/schedule')).body as { id: string; config: { type: string } }[];
  const daily = schedules.find((s) => s.config.type === 'DAILY')!.id;
  const prizes = [
    { position: 1, usdPrize: 100 },
    { position: 2, usdPrize: 50 },
  ];
  expect(
    (await rest('POST', `/leaderboards/schedule/${daily}`, { enabled: true, name: 'Daily race', description: 'test', prizes })).status,
  ).toBe(201);
  for (const wager of ['300', '200', '50']) {
    const user = await env.makeUser();
    const { deposit } = await ok(
      ledger.requestDeposit({
        externalId: `ext-${++seq}`,
        userId: user.id,
        providerId: 'TEST',
        networkId: 'BSC',
        currencyId: 'DBC',
        amount: '1000',
        usdAmount: '1000',
      }),
    );
    await ok(ledger.completeDeposit(deposit.id, {}));
    const betId = `bet-${++seq}`;
    await ok(
      ledger.placeBet({
        id: betId,
        userId: user.id,
        roundId: `round-${seq}`,
        gameId: 1,
        gameIdentity: { name: 'DICE', slug: 'dice', type: 'slots', provider: { name: 'Acme' } },
        currencyId: 'DBC',
        amount: wager,
        usdAmount: wager,
      }),
    );
    await ok(ledger.settleBet(betId, { payout: '0', usdPayout: '0' }));
    if (wager === '50') nonWinner = user.id;
    else winners.push(user.id);
  }
  await projector.waitFor(ledger.internals.handler.lastPosition());
  await runLeaderboardTick({ pool: env.pool, ledger, now: new Date(`${DAY}T06:00:00.000Z`), settlementDelayMs: 60_000 });
  await runLeaderboardTick({ pool: env.pool, ledger, now: new Date('2031-03-11T00:05:00.000Z'), settlementDelayMs: 60_000 });
  const boards = (await rest('GET', '/leaderboards?status=SETTLEMENT')).body as { data: { id: string }[] };
  boardId = boards.data[0]!.id;
  now = new Date();
};
const member = async (userId: number) =>
  (await rest('GET', `/leaderboards/${boardId}/users/${userId}`)).body as { remainingUsdPrize: string; isPrizeReceived: boolean };

beforeAll(async () => {
  env = await createRealtimeEnv('rt_admin_events', {
    publisher: false,
    ws: { throttlerLimit: 10_000 },
    handlers: (e, bus) => [...chatHandlers({ pool: e.pool, bus }), ...adminHandlers({ pool: e.pool, ledger: e.ledger, auth: e.kit, bus })],
  });
  projector = env.startProjector();
  superToken = (await env.signedIn({ roles: ['User', 'SuperAdmin'] })).accessToken;
  await seedLeaderboard();
});
afterAll(async () => {
  await env?.close();
});

/** One valid payload per admin event, on fresh state, with what proves it took effect. */
type Case = Readonly<{
  event: string;
  permission: Permission;
  payload: () => Promise<{ data: unknown; applied: () => Promise<boolean> }>;
}>;

/** Events on the user's wallet stream: an approval or a rejection appends one. */
const walletEvents = async (userId: number) =>
  Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE stream_id = $1', [`wallet-${userId}`])).rows[0]!.n);

const chatMessage = async (): Promise<ChatMessage> => {
  const author = await env.makeUser();
  const sent = await createChat({ pool: env.pool, publish: async () => undefined }).send({
    roomId: 'general',
    userId: author.id,
    text: `hello ${++seq}`,
  });
  if (isLeft(sent)) throw new Error(sent.left._tag);
  return sent.right;
};

const CASES: readonly Case[] = [
  {
    event: 'UserBanUser',
    permission: 'user.ban',
    payload: async () => {
      const target = await env.makeUser();
      return {
        data: { userId: target.id, banReason: 'chargebacks' },
        applied: async () => (await env.users.access(target.id))!.isBanned,
      };
    },
  },
  {
    event: 'WithdrawApprove',
    permission: 'withdrawals.approve',
    payload: async () => {
      const { user, withdrawal } = await pendingWithdrawal(env);
      const before = await walletEvents(user.id);
      return { data: { id: withdrawal.id }, applied: async () => (await walletEvents(user.id)) > before };
    },
  },
  {
    event: 'WithdrawReject',
    permission: 'withdrawals.reject',
    payload: async () => {
      const { user, withdrawal } = await pendingWithdrawal(env);
      const before = await walletEvents(user.id);
      return { data: { id: withdrawal.id, rejectReason: 'sanctions' }, applied: async () => (await walletEvents(user.id)) > before };
    },
  },
  {
    event: 'LeaderboardGivePrize',
    permission: 'leaderboard.give-prize',
    payload: async () => {
      const before = await member(winners[1]!);
      return {
        data: { currency: 'DBC', leaderboardId: boardId, userId: winners[1], usdAmount: '1' },
        applied: async () => (await member(winners[1]!)).remainingUsdPrize !== before.remainingUsdPrize,
      };
    },
  },
  {
    event: 'ChatAdminAction',
    permission: 'chat.admin-action',
    payload: async () => {
      const message = await chatMessage();
      return {
        data: { action: 'delete_message', args: { messageId: message.id } },
        applied: async () =>
          (await env.pool.query('SELECT 1 FROM chat_messages WHERE id = $1 AND deleted_at IS NOT NULL', [message.id])).rowCount === 1,
      };
    },
  },
];

describe('private admin events: access', () => {
  it('each event requires exactly the permission of its REST route (read from the route registry)', () => {
    const twins: Record<string, [string, string]> = {
      UserBanUser: ['patch', '/user/:id/ban'],
      WithdrawApprove: ['post', '/withdraw/approve'],
      WithdrawReject: ['post', '/withdraw/reject'],
      LeaderboardGivePrize: ['post', '/leaderboards/give-prize'],
      ChatAdminAction: ['post', '/chat/admin-action'],
    };
    const handlers = adminHandlers({ pool: env.pool, ledger: env.ledger, auth: env.kit, bus: env.bus });
    expect(handlers.map((h) => h.event).sort()).toEqual(Object.keys(twins).sort());
    for (const h of handlers) {
      const [method, path] = twins[h.event]!;
      const route = env.registry.find((r) => r.method === method && r.path === path);
      expect(route?.access).toEqual({ kind: 'perm', permission: (h.access as { permission: string }).permission });
    }
  });

  it.each(CASES)('$event: an anonymous socket gets 401 and an Unauthorized event, and nothing changes', async ({ event, payload }) => {
    const { data, applied } = await payload();
    const before = await footprint();
    const c = await env.connect();
    expect(await c.ack(event, data)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await c.waitFor('Unauthorized');
    expect(await footprint()).toEqual(before);
    expect(await applied()).toBe(false);
    c.close();
  });

  it.each(CASES)(
    '$event: an Admin without $permission, and a plain User holding it, get 403 and nothing changes',
    async ({ event, permission, payload }) => {
      const { data, applied } = await payload();
      const others = (
        ['user.ban', 'withdrawals.approve', 'withdrawals.reject', 'leaderboard.give-prize', 'chat.admin-action'] as Permission[]
      ).filter((p) => p !== permission);
      const admin = await adminSocket(others);
      const user = await adminSocket([permission], ['User']);
      const before = await footprint();
      expect(await admin.client.ack(event, data)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await user.client.ack(event, data)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await footprint()).toEqual(before);
      expect(await applied()).toBe(false);
      admin.client.close();
      user.client.close();
    },
  );

  it.each(CASES)(
    '$event: an Admin holding $permission succeeds; once it is revoked, the same socket gets 403',
    async ({ event, permission, payload }) => {
      const admin = await adminSocket([permission]);
      const first = await payload();
      expect(await admin.client.ack(event, first.data)).toMatchObject({ status: 200 });
      expect(await first.applied()).toBe(true);

      await env.users.execute(admin.user.id, { type: 'RevokePermission', data: { permission } }, null);
      const second = await payload();
      const before = await footprint();
      expect(await admin.client.ack(event, second.data)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await footprint()).toEqual(before);
      expect(await second.applied()).toBe(false);
      admin.client.close();
    },
  );

  it.each(CASES)('$event: a SuperAdmin holds every permission', async ({ event, payload }) => {
    const admin = await adminSocket([], ['User', 'SuperAdmin']);
    const { data, applied } = await payload();
    expect(await admin.client.ack(event, data)).toMatchObject({ status: 200 });
    expect(await applied()).toBe(true);
    admin.client.close();
  });
});

describe('private admin events: the same effects and answers as REST', () => {
  let admin: Awaited<ReturnType<typeof adminSocket>>;
  beforeAll(async () => {
    admin = await adminSocket([
      'user.ban',
      'user.view',
      'withdrawals.approve',
      'withdrawals.reject',
      'withdrawals.view',
      'leaderboard.give-prize',
      'leaderboard.view',
      'chat.admin-action',
    ]);
  });
  afterAll(() => admin.client.close());
  const restAs = (method: string, path: string, body?: unknown) => rest(method, path, body, admin.accessToken);

  it('WithdrawApprove: the answer is the REST record, and GET /withdraw shows the withdrawal CONFIRMED by this admin', async () => {
    const bySocket = await pendingWithdrawal(env);
    const byRest = await pendingWithdrawal(env);
    const ack = await admin.client.ack('WithdrawApprove', { id: bySocket.withdrawal.id });
    const reply = await restAs('POST', '/withdraw/approve', { id: byRest.withdrawal.id });
    expect(ack.status).toBe(200);
    expect(reply.status).toBe(201);
    const data = ack.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(Object.keys(reply.body).sort());
    expect(data).toMatchObject({
      id: bySocket.withdrawal.id,
      status: 'CONFIRMED',
      confirmedByUserId: admin.user.id,
      user: { id: bySocket.user.id },
    });
    await env.eventually(async () => {
      const listed = await restAs('GET', `/withdraw?sortBy=CREATED_AT&sortOrder=desc&userId=${bySocket.user.id}`);
      expect(listed.body.data).toEqual([expect.objectContaining({ id: bySocket.withdrawal.id, status: 'CONFIRMED' })]);
    });
    // Approved twice: the same refusal as REST.
    expect(await admin.client.ack('WithdrawApprove', { id: bySocket.withdrawal.id })).toMatchObject({
      status: 409,
      code: 'WITHDRAWAL_INVALID_STATE',
    });
    expect(await admin.client.ack('WithdrawApprove', { id: 'no-such-withdrawal' })).toMatchObject({
      status: 404,
      code: 'WITHDRAWAL_NOT_FOUND',
    });
  });

  it('WithdrawReject: DENIED with the reason and the funds back, as REST', async () => {
    const { user, withdrawal } = await pendingWithdrawal(env);
    expect(await balanceOf(env, user.id)).toBe('9');
    const ack = await admin.client.ack('WithdrawReject', { id: withdrawal.id, rejectReason: 'address on a sanctions list' });
    expect(ack).toMatchObject({ status: 200, data: { id: withdrawal.id, status: 'DENIED', rejectReason: 'address on a sanctions list' } });
    expect(await balanceOf(env, user.id)).toBe('10');
  });

  it("UserBanUser: the answer is the user as PATCH /user/{id}/ban answers it, the ban is recorded, and the user's socket is signed out", async () => {
    const target = await env.signedIn();
    const targetSocket = await env.connect({ token: target.accessToken });
    await targetSocket.waitFor('AuthSuccess');
    const ack = await admin.client.ack('UserBanUser', { userId: target.user.id, banReason: 'chargebacks' });
    expect(ack.status).toBe(200);
    const viewed = await restAs('GET', `/user/${target.user.id}`);
    expect(ack.data).toEqual(viewed.body);
    expect(ack.data).toMatchObject({ id: target.user.id, isBanned: true });
    const state = await env.users.load(target.user.id);
    expect(state.status === 'registered' && state.banned).toMatchObject({ reason: 'chargebacks', adminUserId: admin.user.id });
    await targetSocket.waitFor('AuthError');
    expect(await admin.client.ack('UserBanUser', { userId: target.user.id, banReason: 'again' })).toMatchObject({
      status: 409,
      code: 'USER_ALREADY_BANNED',
    });
    expect(await admin.client.ack('UserBanUser', { userId: 987_654_321, banReason: 'x' })).toMatchObject({
      status: 404,
      code: 'USER_NOT_FOUND',
    });
    targetSocket.close();
  });

  it('LeaderboardGivePrize: pays like REST; the same idempotencyKey pays once, across socket and REST', async () => {
    const winner = winners[0]!;
    expect(await balanceOf(env, winner, 'DBC')).toBe('700'); // 1000 deposited - 300 wagered
    const ack = await admin.client.ack('LeaderboardGivePrize', {
      currency: 'DBC',
      leaderboardId: boardId,
      userId: winner,
      usdAmount: '20',
      idempotencyKey: 'k-1',
    });
    expect(ack).toMatchObject({
      status: 200,
      data: { userId: winner, remainingUsdPrize: '80', payment: { currencyId: 'DBC', amount: '20', status: 'PAID' } },
    });
    const again = await admin.client.ack('LeaderboardGivePrize', {
      currency: 'DBC',
      leaderboardId: boardId,
      userId: winner,
      usdAmount: '20',
      idempotencyKey: 'k-1',
    });
    expect((again.data as { payment: unknown }).payment).toEqual((ack.data as { payment: unknown }).payment);
    const viaRest = await call(env.adminUrl, 'POST', '/leaderboards/give-prize', {
      headers: { ...bearer(admin.accessToken), 'idempotency-key': 'k-1' },
      body: { currency: 'DBC', leaderboardId: boardId, userId: winner, usdAmount: '20' },
    });
    expect(viaRest.status).toBe(201);
    expect(viaRest.body.payment).toEqual((ack.data as { payment: unknown }).payment);
    expect(await balanceOf(env, winner, 'DBC')).toBe('720');
    expect((await member(winner)).remainingUsdPrize).toBe('80');
    expect(
      await admin.client.ack('LeaderboardGivePrize', { currency: 'DBC', leaderboardId: boardId, userId: nonWinner, fullUsdAmount: true }),
    ).toMatchObject({ status: 409, code: 'LEADERBOARD_USER_NOT_WINNER' });
  });

  it("ChatAdminAction: set_rate_limit becomes the room's limit; unknown message or room is 404 and nothing is recorded", async () => {
    const ack = await admin.client.ack('ChatAdminAction', { action: 'set_rate_limit', args: { roomId: 'pt', messagesPerMinute: 7 } });
    expect(ack).toMatchObject({
      status: 200,
      data: { action: 'set_rate_limit', adminUserId: admin.user.id, appliedAt: expect.any(String) },
    });
    const rooms = await admin.client.ack('ChatGetRooms');
    expect((rooms.data as { id: string; messagesPerMinute: number }[]).find((r) => r.id === 'pt')?.messagesPerMinute).toBe(7);
    const before = await footprint();
    expect(await admin.client.ack('ChatAdminAction', { action: 'delete_message', args: { messageId: '424242' } })).toMatchObject({
      status: 404,
      code: 'CHAT_MESSAGE_NOT_FOUND',
    });
    expect(
      await admin.client.ack('ChatAdminAction', { action: 'set_rate_limit', args: { roomId: 'nowhere', messagesPerMinute: 7 } }),
    ).toMatchObject({ status: 404, code: 'CHAT_ROOM_NOT_FOUND' });
    expect(await footprint()).toEqual(before);
  });

  it('POST /chat/admin-action on a back office wired to the bus pushes the deletion to the room like the event does', async () => {
    const server = createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: env.pool,
      store: env.store,
      ledger: env.ledger,
      auth: env.kit,
      bus: env.bus,
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const watcher = await adminSocket([]);
    await watcher.client.ack('ChatJoin', { roomId: 'general' });
    const message = await chatMessage();
    const reply = await call(url, 'POST', '/chat/admin-action', {
      headers: bearer(admin.accessToken),
      body: { action: 'delete_message', args: { messageId: message.id } },
    });
    expect(reply.status).toBe(201);
    const update = await watcher.client.waitFor<{ roomId: string; message: ChatMessage }>(
      'ChatMessageUpdate',
      (p) => p.message.id === message.id,
    );
    expect(update).toEqual({ roomId: 'general', message: { ...message, text: '', deletedAt: reply.body.appliedAt } });
    watcher.client.close();
    await new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    });
  });
});

describe('private admin events: bad payloads', () => {
  let admin: { client: TestClient };
  beforeAll(async () => {
    admin = await adminSocket(['user.ban', 'withdrawals.approve', 'withdrawals.reject', 'leaderboard.give-prize', 'chat.admin-action']);
  });
  afterAll(() => admin.client.close());

  it.each([
    ['UserBanUser', { banReason: 'x' }, 'data.userId'],
    ['UserBanUser', { userId: '12', banReason: 'x' }, 'data.userId'],
    ['UserBanUser', { userId: 12 }, 'data.banReason'],
    ['UserBanUser', { userId: 12, banReason: '   ' }, 'data.banReason'],
    ['WithdrawApprove', {}, 'data.id'],
    ['WithdrawApprove', { id: 5 }, 'data.id'],
    ['WithdrawReject', { id: 'w' }, 'data.rejectReason'],
    ['LeaderboardGivePrize', { currency: 'DBC', leaderboardId: 'b', userId: 1 }, 'data.usdAmount'],
    ['LeaderboardGivePrize', { currency: 'DBC', leaderboardId: 'b', userId: 1, usdAmount: '-5' }, 'data.usdAmount'],
    ['LeaderboardGivePrize', { currency: 'NOPE', leaderboardId: 'b', userId: 1, usdAmount: '1' }, 'data.currency'],
    ['LeaderboardGivePrize', { currency: 'DBC', leaderboardId: 'b', userId: 1, usdAmount: '1', idempotencyKey: '' }, 'data.idempotencyKey'],
    ['ChatAdminAction', { action: 'ban_user', args: {} }, 'data.action'],
    ['ChatAdminAction', { action: 'delete_message', args: {} }, 'data.args.messageId'],
    ['ChatAdminAction', { action: 'set_rate_limit', args: { roomId: 'en', messagesPerMinute: 601 } }, 'data.args.messagesPerMinute'],
  ])('%s with %j: 400 VALIDATION_FAILED on %s, nothing changes', async (event, data, field) => {
    const before = await footprint();
    const ack = await admin.client.ack(event, data);
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(fields(ack)).toContain(field);
    expect(await footprint()).toEqual(before);
  });
});
