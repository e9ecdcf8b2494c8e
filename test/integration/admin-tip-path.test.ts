import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call } from '../support/auth-env.js';
import { createRealtimeEnv, type RealtimeEnv } from '../support/realtime-env.js';

/** The files docs/architecture.md names, in order, for an admin tip from route to socket and list. */
const documented = (): string[] => {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## An admin tip, file by file'), doc.indexOf('## A sign-in with MFA'));
  return [...section.matchAll(/^\| \d+ \| `(src\/[^`]+)`/gm)].map((m) => m[1]!);
};

// V8's precise coverage, read through the inspector of this very process: every function of src/ that ran between two
// reads, with no instrumentation of the code. It only adds files when other work (pollers, timers) runs meanwhile.
describe('an admin tip, file by file, as docs/architecture.md names it', () => {
  let env: RealtimeEnv;
  const session = new Session();
  beforeAll(async () => {
    env = await createRealtimeEnv('tip_path', { gateways: 1 });
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

  it('when one tip goes from POST /admin-tips to the player socket and the tips list, then the code runs through every documented file', async () => {
    const admin = await env.signedIn({ roles: ['Admin'], permissions: ['admin-tips.tip', 'admin-tips.view'] });
    const projected = (userId: number) =>
      env.eventually(async () => expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [userId])).rowCount).toBe(1));
    await projected(admin.user.id); // the tip names its admin from the users read model
    const tipOnce = async (): Promise<Set<string>> => {
      const player = await env.signedIn();
      const socket = await env.connect({ token: player.accessToken, gateway: 0 });
      await socket.waitFor('AuthSuccess');
      await projected(player.user.id); // the player's own sign-up is not part of the tip
      const ran = new Set<string>();
      const add = async () => (await ranSinceLastRead()).forEach((f) => ran.add(f));
      await ranSinceLastRead();
      const reply = await call(env.adminUrl, 'POST', '/admin-tips', {
        headers: bearer(admin.accessToken),
        body: { recipientUserId: player.user.id, currencyId: 'USDT', amount: '1.5', notes: 'path' },
      });
      expect(reply.status).toBe(201);
      await socket.waitFor('BalanceTippedSuccess', undefined, 15_000);
      await env.eventually(async () => {
        const list = await call(
          env.adminUrl,
          'GET',
          `/admin-tips?page=1&take=10&sortBy=CREATED_AT&sortOrder=desc&recipientUserId=${player.user.id}`,
          {
            headers: bearer(admin.accessToken),
          },
        );
        expect(list.status).toBe(200);
        expect(list.body.data).toHaveLength(1);
      });
      await add();
      return ran;
    };
    await tipOnce(); // the first tip also loads modules and fills caches
    const ran = await tipOnce();

    const named = documented();
    expect(named).toHaveLength(12);
    expect(named.filter((f) => !ran.has(f))).toEqual([]);
    console.log(`one admin tip, POST to socket and list: code ran in ${ran.size} files of src/:\n  ${[...ran].sort().join('\n  ')}`);
  });
});
