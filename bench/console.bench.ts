/**
 * npm run bench:console — in one run on one server, signed in as a SuperAdmin with 20 pending withdrawals:
 *   1. the console's first load of /admin/#/withdrawals in Chromium, cold cache, each run in a fresh context:
 *      bytes over the wire (gzipped assets + API answers), the JavaScript among them, and the time from navigation
 *      to the first rendered row of the list;
 *      then, warm: the same context loads the page again from another document (HTTP cache and compiled code kept);
 *   2. the bare API call for the same list (GET /withdraw, same page, sort and filter), from Node and from the page.
 * Writes bench/results/console-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt } from '../scripts/console-build.js';
import { BYPASS, call, createAuthEnv } from '../test/support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, launchChromium } from '../test/support/browser.js';
import { pendingWithdrawal } from '../test/support/money-env.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LIST = '/withdraw?page=1&take=20&sortBy=CREATED_AT&sortOrder=asc&status=PENDING';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

const main = async (): Promise<void> => {
  if (!chromiumFound) throw new Error(`bench:console needs Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
  ensureConsoleBuilt();
  const env = await createAuthEnv('bench_console', {
    captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: BYPASS, appEnv: 'local' },
    secureCookies: false,
  });
  env.startProjector();
  const browser = await launchChromium();
  try {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const signed = await call(env.adminUrl, 'POST', '/admin/auth/sign-in', {
      body: { email: admin.email, password: admin.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    const cookies = Object.entries(signed.cookies).map(([name, c]) => ({ name, value: c.value, url: env.adminUrl }));
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push((await pendingWithdrawal(env, '0.01')).withdrawal.id);
    const cookie = Object.entries(signed.cookies)
      .map(([k, c]) => `${k}=${c.value}`)
      .join('; ');
    // The list is a projection: wait until it shows all 20 before timing anything.
    while ((await call(env.adminUrl, 'GET', LIST, { headers: { cookie } })).body.total < 20) await new Promise((r) => setTimeout(r, 50));

    const loads = [];
    const warm: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const context = await browser.newContext({ baseURL: env.adminUrl });
      await context.addCookies(cookies);
      const page: Page = await context.newPage();
      const responses: Promise<{ url: string; type: string; bytes: number; encoding: string }>[] = [];
      page.on('requestfinished', (request) => {
        responses.push(
          (async () => {
            const sizes = await request.sizes().catch(() => ({ responseBodySize: 0, responseHeadersSize: 0 }));
            const response = await request.response().catch(() => null);
            return {
              url: request.url(),
              type: request.resourceType(),
              bytes: sizes.responseBodySize + sizes.responseHeadersSize,
              // A request still finishing when the context closes (the queue's player context, asked after the rows show).
              encoding: (await response?.headerValue('content-encoding').catch(() => '')) ?? '',
            };
          })(),
        );
      });
      // The queue shows an id shortened to its ends, whole in its title.
      const firstRow = async (): Promise<number> => {
        const started = performance.now();
        await page.goto('/admin/#/withdrawals');
        await page
          .getByRole('row')
          .filter({ has: page.getByTitle(ids[0]!, { exact: true }) })
          .waitFor({ timeout: 60_000 });
        return performance.now() - started;
      };
      const ms = await firstRow();
      // What was loaded up to the first rendered row (later requests, such as each player's context, are not the first load).
      const done = await Promise.all(responses.slice());
      const js = done.filter((r) => r.type === 'script');
      loads.push({
        ms,
        bytes: done.reduce((s, r) => s + r.bytes, 0),
        jsBytes: js.reduce((s, r) => s + r.bytes, 0),
        requests: done.length,
        gzipped: js.every((r) => r.encoding === 'gzip'),
      });
      // Warm: the same browser loads the page again (its HTTP cache and compiled code kept), from another document.
      await page.goto('/admin/console-config');
      warm.push(await firstRow());
      await context.close();
    }

    const api = [];
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      const res = await fetch(`${env.adminUrl}${LIST}`, { headers: { cookie } });
      const body = await res.arrayBuffer();
      api.push({
        ms: performance.now() - started,
        bytes: body.byteLength,
        rows: (JSON.parse(Buffer.from(body).toString()) as { data: unknown[] }).data.length,
      });
    }
    const context = await browser.newContext({ baseURL: env.adminUrl });
    await context.addCookies(cookies);
    const page = await context.newPage();
    await page.goto('/admin/console-config');
    const inPage = await page.evaluate(
      async ({ list, runs }) => {
        const out = [];
        for (let i = 0; i < runs; i += 1) {
          const t = performance.now();
          await (await fetch(list, { credentials: 'same-origin' })).text();
          out.push(performance.now() - t);
        }
        return out;
      },
      { list: LIST, runs: RUNS },
    );
    await context.close();

    const report = {
      at: new Date().toISOString(),
      runs: RUNS,
      chromium: CHROMIUM_PATH,
      list: LIST,
      console: {
        firstLoadBytesMedian: median(loads.map((l) => l.bytes)),
        firstLoadKiB: round(median(loads.map((l) => l.bytes)) / 1024),
        javascriptBytesMedian: median(loads.map((l) => l.jsBytes)),
        requestsMedian: median(loads.map((l) => l.requests)),
        allJavascriptGzipped: loads.every((l) => l.gzipped),
        msToFirstRowMedian: round(median(loads.map((l) => l.ms))),
        msToFirstRow: loads.map((l) => round(l.ms)),
        warmMsToFirstRowMedian: round(median(warm)),
        warmMsToFirstRow: warm.map((ms) => round(ms)),
      },
      bareApi: {
        bytes: api[0]!.bytes,
        rows: api[0]!.rows,
        msFromNodeMedian: round(median(api.map((a) => a.ms))),
        msFromPageMedian: round(median(inPage)),
      },
    };
    console.log(
      `console first load of /admin/#/withdrawals: ${report.console.firstLoadKiB} KiB over the wire (${report.console.requestsMedian} requests, ` +
        `JS ${round(report.console.javascriptBytesMedian / 1024)} KiB gzipped), first list row after ${report.console.msToFirstRowMedian} ms cold, ` +
        `${report.console.warmMsToFirstRowMedian} ms warm (medians of ${RUNS})`,
    );
    console.log(
      `bare API ${LIST}: ${report.bareApi.bytes} bytes, ${report.bareApi.msFromNodeMedian} ms from Node, ${report.bareApi.msFromPageMedian} ms from the page (median)`,
    );
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/console-${report.at.replace(/[:.]/g, '-')}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`report: ${file}`);
  } finally {
    await browser.close();
    await env.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
