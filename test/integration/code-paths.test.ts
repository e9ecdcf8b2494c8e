import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, GOOD_CAPTCHA, signIn, totpNow } from '../support/auth-env.js';
import { createRealtimeEnv, type RealtimeEnv } from '../support/realtime-env.js';

/** The distinct src/ files a section of a doc names (those `pattern` finds), from its heading to the next `## `, in order. */
const named = (doc: string, heading: string, pattern = /`(src\/[^`]+\.ts)`/g): string[] => {
  const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8');
  const from = text.indexOf(`## ${heading}`);
  const section = text.slice(from, text.indexOf('\n## ', from + 3));
  return [...new Set([...section.matchAll(pattern)].map((m) => m[1]!))];
};

// V8's precise coverage, read through the inspector of this very process: every function of src/ that ran between two
// reads, with no instrumentation of the code. Other work running meanwhile (pollers, timers) can only add files.
describe('the paths docs/ follows file by file run through every file they name', () => {
  let env: RealtimeEnv;
  const session = new Session();
  beforeAll(async () => {
    env = await createRealtimeEnv('code_paths', { gateways: 1 });
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  });
  afterAll(async () => {
    await session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
    session.disconnect();
    await env?.close();
  });

  /** The src/ files whose functions ran since the last call (each call resets the counts). */
  const ranSinceLastRead = async (): Promise<Set<string>> => {
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      const file = /\/(src\/.+\.ts)(\?|$)/.exec(script.url)?.[1];
      if (file && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) files.add(file);
    }
    return files;
  };
  /** The files `run` went through: the second of two runs, so that module loading and first-use caches are not counted. */
  const filesOf = async (run: () => Promise<void>): Promise<Set<string>> => {
    await run();
    await ranSinceLastRead();
    await run();
    return ranSinceLastRead();
  };
  const projected = (userId: number) =>
    env.eventually(async () => expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [userId])).rowCount).toBe(1));
  const report = (what: string, ran: Set<string>) =>
    console.log(`${what}: code ran in ${ran.size} files of src/:\n  ${[...ran].sort().join('\n  ')}`);

  it('when one admin tip goes from POST /admin-tips to the player socket and the tips list, then it runs through the 11 files docs/architecture.md names', async () => {
    const admin = await env.signedIn({ roles: ['Admin'], permissions: ['admin-tips.tip', 'admin-tips.view'] });
    await projected(admin.user.id); // the tip names its admin from the users read model
    // The players' own sign-ups and socket connections are not part of the tip.
    const ready = async () => {
      const player = await env.signedIn();
      await projected(player.user.id);
      const socket = await env.connect({ token: player.accessToken, gateway: 0 });
      await socket.waitFor('AuthSuccess');
      return { userId: player.user.id, socket };
    };
    const players = [await ready(), await ready()];
    const ran = await filesOf(async () => {
      const { userId, socket } = players.shift()!;
      const reply = await call(env.adminUrl, 'POST', '/admin-tips', {
        headers: bearer(admin.accessToken),
        body: { recipientUserId: userId, currencyId: 'USDT', amount: '1.5', notes: 'path' },
      });
      expect(reply.status).toBe(201);
      await socket.waitFor('BalanceTippedSuccess', undefined, 15_000);
      await env.eventually(async () => {
        const list = await call(
          env.adminUrl,
          'GET',
          `/admin-tips?page=1&take=10&sortBy=CREATED_AT&sortOrder=desc&recipientUserId=${userId}`,
          {
            headers: bearer(admin.accessToken),
          },
        );
        expect(list.status).toBe(200);
        expect(list.body.data).toHaveLength(1);
      });
    });
    const documented = named('architecture.md', 'An admin tip, file by file', /^\| \d+ \| `(src\/[^`]+\.ts)`/gm); // the table's rows
    expect(documented).toHaveLength(11);
    expect(documented.filter((f) => !ran.has(f))).toEqual([]);
    report('one admin tip, POST to socket and list', ran);
  });

  it('when a user with MFA signs in with password then code, then it runs through the 12 files docs/auth.md names', async () => {
    const users = [await env.makeUser(), await env.makeUser()];
    const secrets = new Map<number, string>();
    for (const user of users) {
      const { accessToken } = await signIn(env, user);
      const secret = (await call(env.publicUrl, 'POST', '/auth/mfa/setup', { headers: bearer(accessToken) })).body.secret as string;
      const code = await generate({ secret, epoch: (await totpNow()) - 30 });
      expect((await call(env.publicUrl, 'POST', '/auth/mfa/enable', { headers: bearer(accessToken), body: { code } })).status).toBe(200);
      secrets.set(user.id, secret);
    }
    // Enabling MFA is an event of the user's stream: projected before, so that the followers' work is not counted.
    for (const user of users) {
      await env.eventually(async () =>
        expect((await env.pool.query('SELECT mfa_enabled FROM users WHERE id = $1', [user.id])).rows[0]?.mfa_enabled).toBe(true),
      );
    }
    const ran = await filesOf(async () => {
      const user = users.shift()!;
      const first = await call(env.publicUrl, 'POST', '/auth/sign-in', {
        body: { email: user.email, password: user.password },
        headers: { 'x-captcha-token': GOOD_CAPTCHA },
      });
      expect(first.body).toMatchObject({ mfaRequired: true, mfaToken: expect.any(String) });
      const code = await generate({ secret: secrets.get(user.id)!, epoch: Math.floor(Date.now() / 1000) });
      const verified = await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code, mfaToken: first.body.mfaToken } });
      expect(verified.status).toBe(200);
      expect(verified.cookies.access_token).toBeDefined();
    });
    const documented = named('auth.md', 'A sign-in with MFA, file by file');
    expect(documented).toHaveLength(12);
    expect(documented.filter((f) => !ran.has(f))).toEqual([]);
    report('one sign-in with MFA, password then code', ran);
  });
});
