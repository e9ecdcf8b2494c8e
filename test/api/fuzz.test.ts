import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_CAPTCHA } from '../support/auth-env.js';
import {
  internalOperations,
  leakIn,
  operationsOf,
  pathsOf,
  plausible,
  requestArb,
  setAt,
  type FuzzRequest,
  type Operation,
} from '../support/fuzz.js';
import { createHostileEnv, INTERNAL_TOKEN, type HostileEnv } from '../support/hostile-env.js';

/**
 * `npm run fuzz` sets FUZZ_RUNS (20,000 by default there) and FUZZ_SWEEP=all (every out-of-range value in every field); the
 * suite sends about a thousand requests: each place gets one out-of-range value, the values taken in turn. FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SWEEP_ALL = process.env.FUZZ_SWEEP === 'all';
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CHUNK = 500;

let env: HostileEnv;
let ops: Operation[];
let targetId = 0;

const baseOf = (op: Operation): string =>
  op.surface === 'public' ? env.publicUrl : op.surface === 'admin' ? env.adminUrl : env.internalUrl;
const idFor = (param: string): string => (/user/i.test(param) || param === 'id' ? String(targetId) : 'fuzz-missing');

type Outcome = Readonly<{ status: number; text: string }>;
const send = async (req: FuzzRequest): Promise<Outcome> => {
  const res = await env.asAdmin(baseOf(req.op), req.method, req.path, {
    headers: {
      'x-captcha-token': GOOD_CAPTCHA,
      'x-service-token': INTERNAL_TOKEN,
      ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(req.body === undefined ? {} : { rawBody: req.body }),
  });
  return { status: res.status, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '') };
};

type Tally = { sent: number; ok: number; refused: number; serverErrors: string[]; stateChanges: string[]; leaks: string[] };
const newTally = (): Tally => ({ sent: 0, ok: 0, refused: 0, serverErrors: [], stateChanges: [], leaks: [] });

/**
 * Sends one request and checks it: no 5xx, no internals in the answer, and after a 4xx the event store head and
 * every table's row count are as before. A 2xx (a malformed request can still be a valid one) moves the baseline.
 */
const check = async (req: FuzzRequest, tally: Tally, baseline: { fp: Record<string, number> }): Promise<void> => {
  const out = await send(req);
  tally.sent += 1;
  const what = `${req.method} ${req.path.slice(0, 200)} ${req.body?.slice(0, 200) ?? ''} -> ${out.status} ${out.text.slice(0, 300)}`;
  if (out.status >= 500) tally.serverErrors.push(what);
  const leak = leakIn(out.text);
  if (leak) tally.leaks.push(`${leak}: ${what}`);
  const fp = await env.footprint();
  if (out.status < 400) {
    tally.ok += 1;
  } else {
    tally.refused += 1;
    const changed = Object.keys({ ...fp, ...baseline.fp }).filter((k) => fp[k] !== baseline.fp[k]);
    if (changed.length > 0) tally.stateChanges.push(`${changed.map((k) => `${k} ${baseline.fp[k]}->${fp[k]}`).join(', ')}: ${what}`);
  }
  baseline.fp = fp;
  // A valid request may have banned or demoted the fuzzing SuperAdmin: continue as a fresh one.
  if (req.op.surface === 'admin' && (out.status === 401 || out.status === 403)) {
    const probe = await env.asAdmin(env.adminUrl, 'GET', '/user/all-permissions');
    if (probe.status !== 200) {
      await env.renewAdmin();
      baseline.fp = await env.footprint();
    }
  }
};

const report = (name: string, tally: Tally, ms: number): string =>
  `${name}: ${tally.sent} requests over ${ops.length} operations (seed ${SEED}) in ${(ms / 1000).toFixed(1)} s: ${tally.ok} accepted, ${tally.refused} refused (4xx), ` +
  `${tally.serverErrors.length} 5xx, ${tally.stateChanges.length} state changes after a 4xx, ${tally.leaks.length} leaks`;

const expectClean = (tally: Tally): void => {
  expect(tally.serverErrors.slice(0, 20)).toEqual([]);
  expect(tally.stateChanges.slice(0, 20)).toEqual([]);
  expect(tally.leaks.slice(0, 20)).toEqual([]);
};

const stillAnswers = async (): Promise<void> => {
  for (const base of [env.publicUrl, env.adminUrl, env.internalUrl]) expect((await env.asAdmin(base, 'GET', '/health')).status).toBe(200);
};

beforeAll(async () => {
  env = await createHostileEnv('fuzz');
  targetId = (await env.makeUser()).id;
  const publicDoc = (await env.asAdmin(env.publicUrl, 'GET', '/docs/openapi.json')).body;
  const adminDoc = (await env.asAdmin(env.adminUrl, 'GET', '/docs/openapi.json')).body;
  ops = [...operationsOf(publicDoc, 'public'), ...operationsOf(adminDoc, 'admin'), ...internalOperations()];
});
afterAll(async () => {
  await env?.closeHostile();
});

/** Values out of every range a field can have, sent in each field of every operation in turn. */
const OUT_OF_RANGE: readonly unknown[] = [
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '9'.repeat(20_000),
  -1,
  2 ** 64,
  'a\u0000',
  '\ud800',
];

describe('hostile requests to every operation (public, back office, internal)', () => {
  it('when both OpenAPI documents and the internal API are read, then there are operations on each surface', () => {
    const surfaces = new Set(ops.map((o) => o.surface));
    expect([...surfaces].sort()).toEqual(['admin', 'internal', 'public']);
    expect(ops.length).toBeGreaterThan(60);
  });

  it('when each field, query value and path segment of every operation in turn gets an out-of-range value, then no 5xx, nothing written, no internals, the process still answers', async () => {
    const tally = newTally();
    const baseline = { fp: await env.footprint() };
    const started = Date.now();
    const send1 = (op: Operation, path: string, body: unknown) =>
      check(
        { op, method: op.method, path, body: op.method === 'GET' || body === undefined ? undefined : JSON.stringify(body), label: op.path },
        tally,
        baseline,
      );
    let turn = 0;
    /** Every out-of-range value (FUZZ_SWEEP=all), or the next one in turn: each place gets one, every value gets used. */
    const valuesFor = (): readonly unknown[] => (SWEEP_ALL ? OUT_OF_RANGE : [OUT_OF_RANGE[turn++ % OUT_OF_RANGE.length]]);
    const segmentOf = (value: unknown): string => {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return encodeURIComponent(text.slice(0, 2_000).replace(/[\ud800-\udfff]/g, '\ufffd')).replace('%EF%BF%BD', '%ED%A0%80');
    };
    for (const op of ops) {
      const body = op.body === undefined ? undefined : plausible(op.body, op.components);
      const plainPath = op.params.reduce((p, name) => p.replace(`{${name}}`, encodeURIComponent(idFor(name))), op.path);
      for (const leaf of body === undefined ? [] : pathsOf(body).filter((p) => p.length > 0)) {
        for (const value of valuesFor()) await send1(op, plainPath, setAt(body, leaf, value));
      }
      for (const q of op.query) {
        for (const value of valuesFor()) await send1(op, `${plainPath}?${encodeURIComponent(q.name)}=${segmentOf(value)}`, body);
      }
      for (const name of op.params) {
        for (const value of valuesFor()) {
          await send1(
            op,
            op.path.replace(`{${name}}`, segmentOf(value)).replace(/\{(\w+)\}/g, (_m, n: string) => idFor(n)),
            body,
          );
        }
      }
      if (op.method === 'GET' && op.query.some((q) => q.name === 'where')) {
        for (const value of valuesFor()) await send1(op, `${plainPath}?where[createdAt][lt]=${segmentOf(value)}`, body);
      }
    }
    console.log(report('out of range', tally, Date.now() - started));
    expectClean(tally);
    await stillAnswers();
  }, 600_000);

  it(
    `when ${RUNS} generated malformed requests are sent, then no 5xx, no state change after any 4xx, no stack trace or SQL in any answer, the process still answers`,
    async () => {
      const tally = newTally();
      const baseline = { fp: await env.footprint() };
      const started = Date.now();
      const arb = fc.integer({ min: 0, max: ops.length - 1 }).chain((i) => requestArb(ops[i]!, idFor));
      for (let done = 0; done < RUNS; done += CHUNK) {
        for (const req of fc.sample(arb, { numRuns: Math.min(CHUNK, RUNS - done), seed: SEED + done })) await check(req, tally, baseline);
      }
      console.log(report('fuzz', tally, Date.now() - started));
      expectClean(tally);
      await stillAnswers();
    },
    Math.max(120_000, RUNS * 60),
  );
});
