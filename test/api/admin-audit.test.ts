import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projector } from '../../src/projections/index.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv, type Reply } from '../support/auth-env.js';
import { untilVisible } from '../support/audit-ledger.js';
import { fundedUser, pendingWithdrawal, signedInAdmin } from '../support/money-env.js';

type Admin = Awaited<ReturnType<typeof signedInAdmin>>;
type Entry = {
  id: string;
  action: string;
  adminUserId: number;
  admin: { id: number; username: string };
  targetUserId: number | null;
  targetUser: { id: number; username: string } | null;
  details: Record<string, unknown>;
  source: string;
  eventType: string | null;
  createdAt: string;
};

let env: AuthEnv;
let projector: Projector;
let tipper: Admin;
let moderator: Admin;
let superadmin: Admin;
let auditor: Admin;
let alice: { id: number; username: string | null };
let bob: { id: number; username: string | null };
let carol: { id: number };
let dave: { id: number };
/** Every admin action performed, in order: [action, admin, target]. */
const performed: Array<[string, number, number | null]> = [];
let mid: string;

const ok = async (reply: Promise<Reply>, action: string, admin: Admin, target: number | null): Promise<Reply> => {
  const r = await reply;
  if (r.status >= 300) throw new Error(`${action}: ${r.status} ${JSON.stringify(r.body)}`);
  performed.push([action, admin.id, target]);
  await new Promise((resolve) => setTimeout(resolve, 2)); // one action per millisecond at least: a deterministic order
  return r;
};
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));
const audit = async (query: string, as: Admin = auditor): Promise<Reply> => {
  // Every committed event, not only the visible head: another file's open transaction can hold fresh commits back.
  await projector.waitFor(await untilVisible(env.store, env.pool));
  return as.as('GET', `/admin-audit${query}`);
};
const actionsOf = (reply: Reply) => (reply.body.data as Entry[]).map((e) => e.action);

beforeAll(async () => {
  env = await createAuthEnv('admin_audit');
  projector = env.startProjector();
  tipper = await signedInAdmin(env, ['admin-tips.tip', 'admin-tips.deduct-balance']);
  moderator = await signedInAdmin(env, [
    'withdrawals.approve',
    'withdrawals.reject',
    'user.ban',
    'faq.edit',
    'chat.admin-action',
    'leaderboard.edit',
    'api-key.edit',
    'user-limit.edit',
  ]);
  superadmin = await signedInAdmin(env, [], true);
  auditor = await signedInAdmin(env, ['admin-users.view-admin-audit']);
  alice = await fundedUser(env, '10', 'DBC');
  bob = await env.makeUser();

  await ok(
    tipper.as('POST', '/admin-tips', { body: { amount: '1.5', currencyId: 'DBC', recipientUserId: alice.id, notes: 'bonus' } }),
    'tip',
    tipper,
    alice.id,
  );
  await ok(
    tipper.as('POST', '/admin-tips/deduct-balance', {
      body: { amount: '0.5', currencyId: 'DBC', recipientUserId: alice.id, notes: 'oops' },
    }),
    'deduct-balance',
    tipper,
    alice.id,
  );
  await ok(
    superadmin.as('PUT', `/user/${alice.id}/balance`, { body: { balance: '42', currencyId: 'DBC' } }),
    'set-balance',
    superadmin,
    alice.id,
  );
  const approved = await pendingWithdrawal(env);
  carol = approved.user;
  await ok(moderator.as('POST', '/withdraw/approve', { body: { id: approved.withdrawal.id } }), 'withdrawal.approve', moderator, carol.id);
  const rejected = await pendingWithdrawal(env);
  dave = rejected.user;
  await ok(
    moderator.as('POST', '/withdraw/reject', { body: { id: rejected.withdrawal.id, rejectReason: 'kyc' } }),
    'withdrawal.reject',
    moderator,
    dave.id,
  );
  await ok(moderator.as('PATCH', `/user/${bob.id}/ban`, { body: { banReason: 'abuse' } }), 'user.ban', moderator, bob.id);
  await pause();
  mid = new Date().toISOString();
  await pause();
  await ok(superadmin.as('PATCH', `/user/${bob.id}/unban`), 'user.unban', superadmin, bob.id);
  await ok(
    superadmin.as('PUT', '/user/add-single-role', { body: { username: bob.username, role: 'Admin' } }),
    'role.add',
    superadmin,
    bob.id,
  );
  await ok(
    superadmin.as('PUT', `/user/${bob.id}/permissions`, { body: { permissions: 'user.view' } }),
    'permission.add',
    superadmin,
    bob.id,
  );
  await ok(superadmin.as('DELETE', `/user/${bob.id}/permissions/user.view`), 'permission.remove', superadmin, bob.id);
  await ok(
    superadmin.as('PUT', '/config?code=WITHDRAWALS', { body: { code: {}, config: { enabled: true, dailyLimitUsd: '1000' } } }),
    'config.update',
    superadmin,
    null,
  );
  const created = await superadmin.as('POST', '/user/admin-user', {
    body: { username: `aud${alice.id}`, password: 'audit admin password 1', permissions: ['user.view'] },
  });
  expect(created.status).toBe(201);
  performed.push(['user.create', superadmin.id, created.body.id], ['permission.add', superadmin.id, created.body.id]);
  const faq = await ok(moderator.as('POST', '/faq', { body: { title: 'How?', text: 'Like this.' } }), 'faq.create', moderator, null);
  await ok(moderator.as('PUT', '/faq', { body: { id: faq.body.id, title: 'How, exactly?' } }), 'faq.update', moderator, null);
  await ok(moderator.as('DELETE', '/faq', { body: { id: faq.body.id } }), 'faq.delete', moderator, null);
  const {
    rows: [schedule],
  } = await env.pool.query<{ id: string }>(`SELECT id FROM leaderboard_schedules WHERE type = 'DAILY'`);
  await ok(
    moderator.as('POST', `/leaderboards/schedule/${schedule!.id}`, {
      body: { enabled: true, name: 'Daily', description: 'd', prizes: [{ position: 1, usdPrize: 5 }] },
    }),
    'leaderboard.update-schedule',
    moderator,
    null,
  );
  await ok(
    moderator.as('POST', '/chat/admin-action', { body: { action: 'set_rate_limit', args: { roomId: 'general', messagesPerMinute: 10 } } }),
    'chat.set-rate-limit',
    moderator,
    null,
  );
  const {
    rows: [message],
  } = await env.pool.query<{ id: string }>(
    `INSERT INTO chat_messages (room_id, user_id, username, text, created_at) VALUES ('general', $1, $2, 'spam', now()) RETURNING id::text`,
    [alice.id, alice.username],
  );
  await ok(
    moderator.as('POST', '/chat/admin-action', { body: { action: 'delete_message', args: { messageId: message!.id } } }),
    'chat.delete-message',
    moderator,
    alice.id,
  );
  await ok(moderator.as('POST', '/api-keys', { body: { userId: alice.id } }), 'api-key.issue', moderator, alice.id);
  await ok(
    moderator.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '10', userId: alice.id } }),
    'limits.set-bet-limit',
    moderator,
    alice.id,
  );
});
afterAll(async () => {
  await env?.close();
});

describe('GET /admin-audit', () => {
  it('when admins have acted, then every action is listed once with its admin and target, newest first, and nothing users did themselves', async () => {
    const first = await audit('?take=12');
    const second = await audit('?take=12&page=2');
    expect(first.status).toBe(200);
    expect(performed.length).toBeGreaterThan(12);
    expect(first.body).toMatchObject({ take: 12, page: 1, total: performed.length, totalPages: 2 });
    const entries = [...first.body.data, ...second.body.data] as Entry[];
    expect(entries.map((e) => [e.action, e.adminUserId, e.targetUserId])).toEqual([...performed].reverse());
    const times = entries.map((e) => Date.parse(e.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });

  it("when an entry is read, then it names the admin and the target and carries the action's details", async () => {
    const entries = (await audit('?take=20&adminId=' + tipper.id)).body.data as Entry[];
    const tip = entries.find((e) => e.action === 'tip')!;
    expect(tip).toMatchObject({
      admin: { id: tipper.id, username: tipper.username },
      targetUser: { id: alice.id, username: alice.username },
      source: 'event',
      eventType: 'AdminTipCredited',
      details: { amount: '1.5', currencyId: 'DBC', notes: 'bonus', tag: null },
    });
    expect(tip.details).not.toHaveProperty('postings');
    const reject = ((await audit('?action=withdrawal.reject')).body.data as Entry[])[0]!;
    expect(reject.details).toMatchObject({ rejectReason: 'kyc' });
    const config = ((await audit('?action=config.update')).body.data as Entry[])[0]!;
    expect(config).toMatchObject({
      targetUserId: null,
      targetUser: null,
      details: { code: 'WITHDRAWALS', config: { enabled: true, dailyLimitUsd: '1000' } },
    });
    const faqUpdate = ((await audit('?action=faq.update')).body.data as Entry[])[0]!;
    expect(faqUpdate).toMatchObject({
      source: 'record',
      eventType: null,
      details: { before: { title: 'How?' }, after: { title: 'How, exactly?' } },
    });
    const schedule = ((await audit('?action=leaderboard.update-schedule')).body.data as Entry[])[0]!;
    expect(schedule.details).toMatchObject({ before: { name: 'Daily race' }, after: { name: 'Daily', enabled: true } });
    const chat = ((await audit('?action=chat.delete-message')).body.data as Entry[])[0]!;
    expect(chat).toMatchObject({ source: 'chat', targetUserId: alice.id, adminUserId: moderator.id });
    const key = ((await audit('?action=api-key.issue')).body.data as Entry[])[0]!;
    expect(Object.keys(key.details).sort()).toEqual(['apiKeyId', 'prefix', 'revokedApiKeyIds']);
  });

  it('when filtered by admin, target user, action or time, then only the matching entries are listed', async () => {
    expect(actionsOf(await audit(`?adminId=${tipper.id}`))).toEqual(['deduct-balance', 'tip']);
    expect(actionsOf(await audit(`?userId=${bob.id}`))).toEqual([
      'permission.remove',
      'permission.add',
      'role.add',
      'user.unban',
      'user.ban',
    ]);
    expect(actionsOf(await audit(`?userId=${bob.id}&adminId=${superadmin.id}`))).toEqual([
      'permission.remove',
      'permission.add',
      'role.add',
      'user.unban',
    ]);
    expect(actionsOf(await audit(`?action=set-balance&userId=${alice.id}`))).toEqual(['set-balance']);
    expect(actionsOf(await audit(`?action=set-balance&userId=${bob.id}`))).toEqual([]);
    const before = performed.slice(
      0,
      performed.findIndex(([a]) => a === 'user.unban'),
    );
    expect(actionsOf(await audit(`?to=${mid}`))).toEqual(before.map(([a]) => a).reverse());
    const after = await audit(`?from=${encodeURIComponent(mid)}&take=20`);
    expect(after.body.total).toBe(performed.length - before.length);
    const newest = ((await audit('')).body.data as Entry[])[0]!;
    expect(newest.action).toBe(performed.at(-1)![0]);
    expect(actionsOf(await audit(`?from=${newest.createdAt}`))).toEqual([newest.action]);
    expect((await audit(`?to=${encodeURIComponent(newest.createdAt.replace('Z', '+00:00'))}&take=20`)).body.total).toBe(
      performed.length - 1,
    );
  });

  it('when the filter is malformed, then 400 VALIDATION_FAILED names each bad field', async () => {
    const fields = async (query: string) => {
      const r = await audit(query);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
      return (r.body.details as Array<{ field: string }>).map((d) => d.field);
    };
    expect(await fields('?action=tips')).toEqual(['query.action']);
    expect(await fields('?adminId=abc&userId=0')).toEqual(['query.adminId', 'query.userId']);
    expect(await fields('?from=yesterday')).toEqual(['query.from']);
    expect(await fields('?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z')).toEqual(['query.to']);
    expect(await fields('?take=100')).toEqual(['query.take']);
  });

  it('when called without admin-users.view-admin-audit, then 401 for nobody and 403 for a user, an admin without it; a SuperAdmin may', async () => {
    expect((await call(env.adminUrl, 'GET', '/admin-audit')).status).toBe(401);
    const user = await signIn(env, await env.makeUser());
    expect((await call(env.adminUrl, 'GET', '/admin-audit', { headers: bearer(user.accessToken) })).status).toBe(403);
    expect((await audit('', tipper)).status).toBe(403);
    expect((await audit('', superadmin)).status).toBe(200);
  });
});
