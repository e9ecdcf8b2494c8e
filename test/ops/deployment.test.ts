import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/audit/verify.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import {
  ADMIN,
  connectSocket,
  health,
  projectionLags,
  startDeployment,
  waitForHealth,
  waitForProjections,
  type Deployment,
  type RecordingSocket,
} from '../support/deployment.js';
import { countFound, startLedgerLoad, type LoadTally } from '../support/ledger-load.js';
import { signIn, signUp, type SignedUp } from '../support/ops-clients.js';
import { SERVICE_TEST_ENV, waitFor } from '../support/service-process.js';

/**
 * The scaled-out deployment as real processes (2 APIs, 2 gateways, 2 projectors of `src/main.ts`) on a PostgreSQL
 * cluster and a Redis server of this test's own, then its dependencies failing under a steady ledger load.
 */
const TOKEN = SERVICE_TEST_ENV.INTERNAL_API_TOKEN!;
const json = { 'content-type': 'application/json' };

describe('a scaled-out deployment', () => {
  let d: Deployment;
  let admin: string;
  let player: SignedUp;
  let loadUsers: SignedUp[];
  let sockets: RecordingSocket[] = [];

  const internal = (base: string, path: string, body: unknown) =>
    fetch(`${base}/internal${path}`, { method: 'POST', headers: { ...json, 'x-service-token': TOKEN }, body: JSON.stringify(body) }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
    );
  const tip = (base: string, recipientUserId: number, amount: string) =>
    fetch(`${base}/admin-tips`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${admin}` },
      body: JSON.stringify({ amount, currencyId: 'USDT', recipientUserId, notes: 'scale-out' }),
    }).then((r) => r.status);
  const deposit = async (base: string, userId: number, amount: string): Promise<void> => {
    const created = await internal(base, '/deposits', {
      externalId: `x-${Date.now()}-${Math.random()}`,
      userId,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount,
    });
    expect(created.status).toBe(201);
    expect((await internal(base, `/deposits/${String(created.body.id)}/complete`, { txHash: '0x1' })).status).toBe(200);
  };
  /** The socket gets event `name` with this `amount` (decimal, compared without trailing zeros) within `ms`. */
  const receives = (s: RecordingSocket, name: string, amount: string, ms = 15_000) =>
    waitFor(async () => (s.received.some((e) => e.name === name && amountOf(e.payload) === decimal(amount)) ? true : undefined), ms);
  /** The player's USDT balance now, folded from the wallet stream: what the next BalanceUpdated must carry. */
  const balance = async (): Promise<string> => {
    const res = await fetch(`${d.apis[0]!.adminUrl}/internal/wallets/${player.userId}/balances`, { headers: { 'x-service-token': TOKEN } });
    const rows = (await res.json()) as { currencyId: string; balance: string }[];
    return rows.find((r) => r.currencyId === 'USDT')!.balance;
  };

  const report = (label: string, tally: LoadTally, found: number, extra: Record<string, unknown> = {}): void => {
    const failures = Object.fromEntries(tally.failures);
    process.stdout.write(
      `[${label}] commands answered 2xx: ${tally.ok}, found in the store: ${found}; sent ${tally.sent}, ` +
        `503: ${tally.unavailable}, other: ${tally.other}, network errors: ${tally.networkErrors}, slowest answer ${tally.slowestMs} ms; ` +
        `queries ${tally.queriesOk}/${tally.queries} ok; failures ${JSON.stringify(failures)} ${JSON.stringify(extra)}\n`,
    );
  };

  /** Runs `fault` under a steady load through both APIs; returns the tally once `recover` is done and load ran on a little. */
  const underLoad = async (fault: () => Promise<void>): Promise<LoadTally> => {
    const load = startLedgerLoad({
      adminUrls: d.apis.map((a) => a.adminUrl!),
      serviceToken: TOKEN,
      userIds: loadUsers.map((u) => u.userId),
      workers: 4,
      pauseMs: 10,
    });
    await waitFor(async () => (load.tally.ok >= 20 ? true : undefined), 20_000);
    await fault();
    const okAfter = load.tally.ok;
    await waitFor(async () => (load.tally.ok >= okAfter + 20 ? true : undefined), 20_000);
    return load.stop();
  };

  const assertConverged = async (): Promise<void> => {
    const caughtUp = await waitForProjections(d.apis[0]!.adminUrl!);
    expect(caughtUp, JSON.stringify([...((await projectionLags(d.apis[0]!.adminUrl!)) ?? [])])).toBeDefined();
    // verifyLedger holds a snapshot connection and opens others (seals): a pool of 2 would starve it.
    const pool = new pg.Pool({ connectionString: d.pg.url, max: 10 });
    pool.on('error', () => undefined);
    try {
      const store = createPostgresEventStore({ pool });
      const verified = await verifyLedger({ store, pool, seals: { key: Buffer.from(d.env.LEDGER_SEAL_KEY!, 'hex') } });
      await store.close();
      expect(verified.ok, JSON.stringify(verified).slice(0, 2_000)).toBe(true);
    } finally {
      await pool.end();
    }
  };

  beforeAll(async () => {
    d = await startDeployment({ apis: 2, gateways: 2, projectors: 2 });
    admin = await signIn(d.apis[0]!.publicUrl!, ADMIN.email, ADMIN.password);
    player = await signUp(d.apis[1]!.publicUrl!, 'player');
    loadUsers = await Promise.all([0, 1, 2].map((i) => signUp(d.apis[i % 2]!.publicUrl!, `load${i}`)));
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await d?.stop();
  }, 60_000);

  describe('scale-out', () => {
    it('when a user signs in on one API, then the token works on the other API and on both gateways', async () => {
      const token = await signIn(d.apis[0]!.publicUrl!, player.email, player.password);
      for (const api of d.apis) {
        const me = await fetch(`${api.publicUrl}/user/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(me.status).toBe(200);
        expect(((await me.json()) as { id: number }).id).toBe(player.userId);
      }
      sockets = await Promise.all(d.gateways.map((g) => connectSocket(g.gatewayUrl!, token)));
      expect(sockets.every((s) => s.socket.connected)).toBe(true);
    });

    it("when tips go through either API, then the recipient's sockets on both gateways get each exactly once, in ledger order", async () => {
      expect(await tip(d.apis[0]!.adminUrl!, player.userId, '1.5')).toBe(201);
      expect(await tip(d.apis[1]!.adminUrl!, player.userId, '2.25')).toBe(201);
      // A last tip marks the end: per-user events arrive in ledger order, so a repeat of the first two would come before it.
      expect(await tip(d.apis[1]!.adminUrl!, player.userId, '3')).toBe(201);
      for (const s of sockets) expect(await receives(s, 'BalanceTippedSuccess', '3')).toBe(true);
      for (const s of sockets) {
        const tips = s.received.filter((e) => e.name === 'BalanceTippedSuccess');
        expect(tips.map((e) => amountOf(e.payload))).toEqual(['1.5', '2.25', '3']);
        expect(new Set(tips.map((e) => e.position)).size).toBe(3);
      }
    });

    it(
      'when the projectors run side by side, then every read model is exact (no event applied twice) and health is ok everywhere',
      { timeout: 60_000 },
      async () => {
        await deposit(d.apis[0]!.adminUrl!, player.userId, '10');
        await assertConverged();
        for (const p of [...d.apis, ...d.gateways, ...d.projectors]) expect((await health(p)).status, p.name).toBe(200);
      },
    );
  });

  describe('dependency faults under a steady load', () => {
    it(
      'when PostgreSQL restarts, then /health names the database, commands fail fast with 503, none acknowledged is lost, ' +
        'and read models and sockets converge without a restart',
      async () => {
        let downAt = 0;
        let upAt = 0;
        const tally = await underLoad(async () => {
          downAt = Date.now();
          await d.pg.stop();
          for (const p of [d.apis[0]!, d.gateways[0]!, d.projectors[0]!]) expect(await waitForHealth(p, 'database'), p.name).toBeDefined();
          // Commands keep coming while it is down: they must be answered 503, not hang.
          const during = tally503(d);
          await waitFor(async () => ((await during()) ? true : undefined), 10_000);
          await d.pg.start();
          upAt = Date.now();
          for (const p of [...d.apis, ...d.gateways, ...d.projectors]) expect(await waitForHealth(p, undefined), p.name).toBeDefined();
        });
        const found = await countFound(d.pg.url, tally.acknowledged);
        report('postgres restart', tally, found, { outageMs: upAt - downAt });
        expect(found).toBe(tally.acknowledged.length);
        expect(tally.unavailable).toBeGreaterThan(0);
        expect(tally.other).toBe(0);
        expect(tally.networkErrors).toBe(0);
        expect([...tally.failures.keys()]).toEqual(['503 SERVICE_UNAVAILABLE']);
        for (const p of [...d.apis, ...d.gateways, ...d.projectors]) expect(p.child.exitCode, p.name).toBeNull();
        await deposit(d.apis[1]!.adminUrl!, player.userId, '7.77');
        const after = await balance();
        for (const s of sockets) expect(await receives(s, 'BalanceUpdated', after)).toBe(true);
        await assertConverged();
      },
      90_000,
    );

    it(
      'when Redis stops and starts again, then /health names redis, sign-in still works, the ledger goes on, ' +
        'and sockets get what happened meanwhile',
      async () => {
        let signInDuring: { status: number; ms: number } | undefined;
        let during = '';
        const tally = await underLoad(async () => {
          await d.redis.stop();
          for (const p of [d.apis[1]!, d.gateways[1]!, d.projectors[1]!]) expect(await waitForHealth(p, 'redis'), p.name).toBeDefined();
          const started = Date.now();
          const res = await fetch(`${d.apis[0]!.publicUrl}/auth/sign-in`, {
            method: 'POST',
            headers: { ...json, 'x-captcha-token': 'local-captcha-bypass' },
            body: JSON.stringify({ email: player.email, password: player.password }),
          });
          signInDuring = { status: res.status, ms: Date.now() - started };
          // The ledger does not need Redis; its server events wait in the publisher until Redis is back.
          await deposit(d.apis[0]!.adminUrl!, player.userId, '4.44');
          during = await balance();
          await d.redis.start();
          for (const p of [...d.apis, ...d.gateways, ...d.projectors]) expect(await waitForHealth(p, undefined), p.name).toBeDefined();
        });
        const found = await countFound(d.pg.url, tally.acknowledged);
        report('redis restart', tally, found, { signInDuring });
        expect(found).toBe(tally.acknowledged.length);
        // The sign-in throttle falls back to per-process counting while Redis is down: sign-in is answered, not refused.
        expect(signInDuring?.status).toBe(200);
        expect(tally.failures.size).toBe(0);
        for (const s of sockets) expect(await receives(s, 'BalanceUpdated', during)).toBe(true);
        await deposit(d.apis[1]!.adminUrl!, player.userId, '5.55');
        const after = await balance();
        for (const s of sockets) expect(await receives(s, 'BalanceUpdated', after)).toBe(true);
        expect(await signIn(d.apis[1]!.publicUrl!, player.email, player.password)).toBeTruthy();
        await assertConverged();
      },
      90_000,
    );

    it('when a projector is killed with SIGKILL, then the other takes over within 5 s, and read models and sockets converge', async () => {
      const [victim, survivor] = d.projectors as [(typeof d.projectors)[0], (typeof d.projectors)[0]];
      let takeoverMs = -1;
      const tally = await underLoad(async () => {
        const killedAt = Date.now();
        await victim.kill();
        expect(victim.child.signalCode).toBe('SIGKILL');
        await expect(health(victim)).rejects.toThrow(); // its /health is gone with it
        // The next command after the kill must reach the read models through the survivor.
        await deposit(d.apis[0]!.adminUrl!, player.userId, '6.66');
        const seen = await waitFor(async () => {
          const res = await fetch(`${d.apis[1]!.adminUrl}/deposit?userId=${player.userId}&sortBy=CREATED_AT&sortOrder=desc&take=1`, {
            headers: { authorization: `Bearer ${admin}` },
          });
          const body = (await res.json()) as { data?: { amount: string; status: string }[] };
          return body.data?.[0]?.amount === '6.66' && body.data[0].status === 'COMPLETE' ? true : undefined;
        }, 15_000);
        expect(seen).toBe(true);
        takeoverMs = Date.now() - killedAt;
      });
      const after = await balance();
      const found = await countFound(d.pg.url, tally.acknowledged);
      report('projector SIGKILL', tally, found, { takeoverMs });
      expect(takeoverMs).toBeLessThan(5_000);
      expect(found).toBe(tally.acknowledged.length);
      expect(tally.failures.size).toBe(0);
      expect((await health(survivor)).status).toBe(200);
      for (const s of sockets) expect(await receives(s, 'BalanceUpdated', after)).toBe(true);
      await assertConverged();
    }, 90_000);
  });
});

/** A decimal string without trailing zeros ("1.500000" -> "1.5"). */
const decimal = (v: string): string => (v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v);
const amountOf = (payload: unknown): string | undefined => {
  const amount = (payload as { amount?: unknown } | undefined)?.amount;
  return typeof amount === 'string' ? decimal(amount) : undefined;
};

/** Probe: a command sent now is answered 503 SERVICE_UNAVAILABLE (true), quickly. */
const tally503 = (d: Deployment) => async (): Promise<true | undefined> => {
  const res = await fetch(`${d.apis[0]!.adminUrl}/internal/deposits`, {
    method: 'POST',
    headers: { ...json, 'x-service-token': TOKEN },
    body: JSON.stringify({
      externalId: `probe-${Date.now()}`,
      userId: 1,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '1',
    }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { code?: string };
  return res.status === 503 && body.code === 'SERVICE_UNAVAILABLE' ? true : undefined;
};
