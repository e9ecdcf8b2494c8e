import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { BYPASS, bearer, call, createAuthEnv, totpNow, type AuthEnv } from '../support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, expectAccessible, launchChromium, seriousViolations, signInConsole } from '../support/browser.js';
import { balanceOf, fundedUser, pendingWithdrawal } from '../support/money-env.js';
import { runLeaderboardTick } from '../../src/leaderboards/leaderboard.scheduler.js';
import { formatMoney } from '../../console/src/format.js';

/** Sign-in over HTTP with the local captcha bypass (this env runs as APP_ENV=local, the default configuration). */
const signIn = async (env: AuthEnv, user: { email: string; password: string }, base = env.publicUrl) => {
  const reply = await call(base, 'POST', '/auth/sign-in', {
    body: { email: user.email, password: user.password },
    headers: { 'x-captcha-token': BYPASS },
  });
  if (reply.status !== 200) throw new Error(`sign-in failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { accessToken: reply.cookies.access_token?.value ?? '', refreshToken: reply.cookies.refresh_token?.value ?? '' };
};

/** A SuperAdmin calling the back office over HTTP, to set up or read what a screen must show. */
const superAdminApi = async (env: AuthEnv) => {
  const user = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  const { accessToken } = await signIn(env, user);
  return {
    id: user.id,
    as: (method: string, path: string, options: { body?: unknown } = {}) =>
      call(env.adminUrl, method, path, { ...options, headers: bearer(accessToken) }),
  };
};

// The tracked screenshots in docs/console/ are rewritten only on request (CONSOLE_SCREENSHOTS_DIR=docs/console): a test run
// must not dirty the working tree. Otherwise they still are taken (the pages must render), into a temporary directory.
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'console-shots-'));
mkdirSync(SHOTS, { recursive: true });
if (!chromiumFound) console.log(`admin console browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);

// Generous bounds, not sleeps: on a loaded 2-CPU machine Chromium and the projector can take many seconds per step.
describe.skipIf(!chromiumFound)('admin console in Chromium', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  let base: string;
  const contexts: BrowserContext[] = [];
  let superPage: Page;

  /** What Chromium reported refusing under the console's Content-Security-Policy, on any page of these tests. */
  const cspViolations: string[] = [];
  /** What any page of these tests asked for and was answered 404 (the favicon once was, on every load). */
  const notFound: string[] = [];
  /** A fresh browser context (own cookies) on the console. */
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
    return page;
  };
  const shoot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
  const signInPassword = signInConsole;
  /** The command form titled `name` on the page. */
  const form = (page: Page, name: string) => page.getByRole('region', { name });
  const confirm = (page: Page) =>
    page
      .getByRole('dialog')
      .getByRole('button', { name: /Confirm|Reject/ })
      .click();
  /** The console's notice of a command done; notices queue, so a check for none left must first see this one open. */
  const notified = (page: Page, text: string) => page.getByText(text, { exact: true }).waitFor();
  /**
   * A confirmed command answered: its notice shows and its dialog is gone. While a dialog is open the page behind it is
   * aria-hidden, so a role locator on it matches nothing and a wait for a row to leave would pass before the command ran.
   */
  const answered = async (page: Page, notice: string) => {
    await notified(page, notice);
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  };
  const chooseCurrency = async (page: Page, formName: string, currency: string) => {
    await form(page, formName).getByRole('combobox', { name: 'Currency' }).click();
    await page.getByRole('option', { name: currency, exact: true }).click();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    // APP_ENV=local: the console passes the captcha with the local bypass token, as with the default configuration.
    env = await createAuthEnv(
      'console',
      {
        captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: BYPASS, appEnv: 'local' },
        secureCookies: false,
      },
      { readConsistencyTimeoutMs: 20_000 },
    ); // the tests check what a consistent read shows after an action, not how soon
    env.startProjector();
    base = env.adminUrl;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when a SuperAdmin with MFA signs in, then the code step follows the password and the dashboard opens', async () => {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const { accessToken } = await signIn(env, admin, env.publicUrl);
    const setup = await call(env.publicUrl, 'POST', '/auth/mfa/setup', { headers: bearer(accessToken) });
    const secret = setup.body.secret as string;
    const now = await totpNow();
    expect(
      (
        await call(env.publicUrl, 'POST', '/auth/mfa/enable', {
          headers: bearer(accessToken),
          body: { code: await generate({ secret, epoch: now - 30 }) },
        })
      ).status,
    ).toBe(200);

    superPage = await newPage();
    await superPage.goto('/admin/');
    await superPage.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectAccessible(superPage, 'sign-in');
    await shoot(superPage, 'sign-in');
    await signInPassword(superPage, admin);
    await superPage.getByLabel('Authenticator code').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await superPage.getByRole('button', { name: 'Verify code' }).click();
    await superPage.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await superPage.getByTestId('pending-count').getByText(/^\d+$/).waitFor();
    await expectAccessible(superPage, 'dashboard');
    await shoot(superPage, 'dashboard');
  });

  it('when a withdrawal is approved and another rejected, then both leave the PENDING queue, and a new one appears without reload', async () => {
    const first = await pendingWithdrawal(env, '1.25');
    const second = await pendingWithdrawal(env, '0.5');
    const page = superPage;
    await page.goto('/admin/#/withdrawals');
    // The queue shows an id shortened, whole in its title.
    const row = (id: string) => page.getByRole('row').filter({ has: page.getByTitle(id, { exact: true }) });
    await row(first.withdrawal.id).waitFor();
    await row(second.withdrawal.id).waitFor();
    await expect(row(first.withdrawal.id).getByText('1.25 BTC').isVisible()).resolves.toBe(true);
    await expectAccessible(page, 'withdrawals');
    await shoot(page, 'withdrawals');

    await row(first.withdrawal.id).getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('dialog').textContent()).resolves.toContain('1.25 BTC');
    await confirm(page);
    await answered(page, 'Approve: done');
    await row(first.withdrawal.id).waitFor({ state: 'detached' });

    await row(second.withdrawal.id).getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('dialog').getByLabel('Reject reason').fill('address on a sanctions list');
    // The reject answers a second late, as under load: every check below must wait for the answer, not pass before it.
    await page.route('**/withdraw/reject', async (r) => {
      await new Promise((ok) => setTimeout(ok, 1000));
      await r.continue();
    });
    await confirm(page);
    await answered(page, "Rejected: the funds are back in the user's wallet");
    await page.unroute('**/withdraw/reject');
    await row(second.withdrawal.id).waitFor({ state: 'detached' });
    expect(await balanceOf(env, second.user.id)).toBe('10');
    const states = await call(env.adminUrl, 'GET', `/withdraw?page=1&take=20&sortBy=CREATED_AT&sortOrder=asc&userId=${first.user.id}`, {
      headers: bearer((await signIn(env, await env.makeUser({ roles: ['User', 'SuperAdmin'] }))).accessToken),
    });
    expect(states.body.data[0].status).not.toBe('PENDING');

    const third = await pendingWithdrawal(env, '0.75');
    await row(third.withdrawal.id).waitFor();
  });

  it("when a tip is sent from the user page, then the recipient's balance on that page changes to the new exact amount", async () => {
    const user = await fundedUser(env, '10', 'DBC');
    const page = superPage;
    await page.goto(`/admin/#/users/${user.id}/show`);
    const balances = page.getByRole('table', { name: 'Balances' });
    await balances.getByText('10 DBC', { exact: true }).waitFor();
    await form(page, 'Send a tip').getByLabel('Amount').fill('2.5');
    await form(page, 'Send a tip').getByLabel('Notes').fill('birthday');
    await form(page, 'Send a tip').getByRole('button', { name: 'Send tip' }).click();
    await expect(page.getByRole('dialog').textContent()).resolves.toContain('2.5 DBC');
    await confirm(page);
    await notified(page, 'Send a tip: done');
    await balances.getByText('12.5 DBC', { exact: true }).waitFor();
    expect(await balanceOf(env, user.id, 'DBC')).toBe('12.5');
    await expectAccessible(page, 'user');
    await shoot(page, 'user', true);
  });

  it('when a tip of 18 decimals is sent, then the confirmation shows exactly the digits typed, the balance and the tips list a readable amount with those digits on hover', async () => {
    const user = await env.makeUser();
    const amount = '0.123456789012345678';
    const page = superPage;
    await page.goto(`/admin/#/users/${user.id}/show`);
    await page.getByRole('heading', { name: new RegExp(String(user.username)) }).waitFor();
    await form(page, 'Send a tip').getByLabel('Amount').fill(amount);
    await chooseCurrency(page, 'Send a tip', 'ETH');
    await form(page, 'Send a tip').getByRole('button', { name: 'Send tip' }).click();
    await expect(page.getByRole('dialog').textContent()).resolves.toContain(`${amount} ETH`);
    await confirm(page);
    await notified(page, 'Send a tip: done');
    const shown = page.getByRole('table', { name: 'Balances' }).getByTitle(`${amount} ETH`, { exact: true });
    await shown.waitFor();
    expect(await shown.innerText()).toBe('0.123457 ETH');
    expect(await balanceOf(env, user.id, 'ETH')).toBe(amount);
    await page.goto(`/admin/#/admin-tips`);
    await page
      .getByRole('row')
      .filter({ hasText: String(user.username) })
      .getByTitle(`${amount} ETH`, { exact: true })
      .getByText('0.123457 ETH', { exact: true })
      .waitFor();
    await expectAccessible(page, 'admin-tips');
    await shoot(page, 'admin-tips');
  });

  it("when a user is banned from the console, then the page says so and the user's session no longer works", async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    expect((await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(accessToken) })).status).toBe(200);
    const page = superPage;
    await page.goto(`/admin/#/users/${user.id}/show`);
    await page.getByLabel('Ban reason').fill('chargeback fraud');
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await confirm(page);
    await page.getByText('Banned: chargeback fraud').waitFor();
    const after = await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(accessToken) });
    expect([401, 403]).toContain(after.status);
    expect((await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: {} })).status).toBe(401);
  });

  it('when an Admin holds only withdrawals.view, then the queue shows without approve or reject, other screens are hidden, and a typed URL shows the 403', async () => {
    const pending = await pendingWithdrawal(env, '0.3');
    const viewer = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['withdrawals.view'] });
    const page = await newPage();
    await signInPassword(page, viewer);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('menuitem', { name: 'Withdrawals' }).click();
    const row = page.getByRole('row').filter({ has: page.getByTitle(pending.withdrawal.id, { exact: true }) });
    await row.waitFor();
    expect(await row.getByRole('button', { name: /Approve|Reject|Retry/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('menuitem', { name: 'Users' }).count()).toBe(0);
    expect(await page.getByRole('menuitem', { name: 'Audit log' }).count()).toBe(0);
    await page.goto('/admin/#/admin-audit');
    await page.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
    // No page of rows was answered: no pager, and so no count of rows.
    await page.getByRole('progressbar').waitFor({ state: 'detached' });
    expect(await page.getByText(/\d+-\d+ of \d+/).count()).toBe(0);
    expect(await page.getByText(/Rows per page/).count()).toBe(0);
    await shoot(page, 'forbidden');
  });

  it('when an Admin with user.view searches part of a name, then the match opens its record without the SuperAdmin sections', async () => {
    const target = await env.makeUser({ username: `find${Date.now().toString(36).slice(-6)}` });
    const support = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.view'] });
    const page = await newPage();
    await signInPassword(page, support);
    await page.getByRole('menuitem', { name: 'Users' }).click();
    await page.getByText('Type part of a name or e-mail, or an id, to find a user.').waitFor();
    expect(await page.getByText(/No .* found/).count()).toBe(0);
    await page.getByLabel('Search name, e-mail or id').fill(String(target.username).slice(0, 8).toUpperCase());
    await page
      .getByRole('row')
      .filter({ hasText: String(target.username) })
      .click();
    await page.getByRole('heading', { name: new RegExp(String(target.username)) }).waitFor();
    expect(await page.getByRole('region', { name: 'Set balance' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Ban', exact: true }).count()).toBe(0);
    await page.getByRole('table', { name: 'Balances' }).waitFor();
    // Every section heading has something under it: none of the money forms, so no Money heading at all.
    expect(await page.getByRole('heading', { name: 'Money', exact: true }).count()).toBe(0);
    const empty = await page.locator('section').evaluateAll((sections) =>
      sections
        .map((s) => ({ heading: s.querySelector('h2')?.textContent?.trim() ?? '', text: (s as { innerText: string }).innerText.trim() }))
        .filter((s) => s.heading !== '' && s.text === s.heading)
        .map((s) => s.heading),
    );
    expect(empty).toEqual([]);
  });

  it('when the access token is gone, then the console refreshes silently; when the admin signs out, then the session ends', async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['withdrawals.view'] });
    const page = await newPage();
    await signInPassword(page, admin);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const refreshes: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/admin/auth/refresh')) refreshes.push(r.status());
    });
    await page.context().clearCookies({ name: 'access_token' });
    await page.getByRole('menuitem', { name: 'Withdrawals' }).click();
    await page
      .getByText(/^(No Withdrawals found.*|Requested)$/)
      .first()
      .waitFor();
    expect(refreshes).toContain(200);
    const cookies = Object.fromEntries((await page.context().cookies()).map((c) => [c.name, c.value]));
    expect((await call(env.adminUrl, 'GET', '/admin/session', { cookies })).status).toBe(200);

    await page.getByRole('button', { name: String(admin.username) }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await call(env.adminUrl, 'GET', '/admin/session', { cookies })).status).toBe(401);
  });

  it("when a User without a back-office role signs in, then the sign-in page shows the API's 403 and no session stays", async () => {
    const user = await env.makeUser();
    const page = await newPage();
    await signInPassword(page, user);
    await page.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
    const cookies = Object.fromEntries((await page.context().cookies()).map((c) => [c.name, c.value]));
    expect((await call(env.publicUrl, 'GET', '/user/me', { cookies })).status).toBe(401);
  });

  it('when the leaderboard schedules screen opens, then each row shows its type, name and prizes from its config', async () => {
    const admin = await superAdminApi(env);
    const schedules = (await admin.as('GET', '/leaderboards/schedule')).body as {
      id: string;
      config: { type: string; name: string; prizes: { position: number; usdPrize: number }[] };
    }[];
    expect(schedules.length).toBeGreaterThan(0);
    const page = superPage;
    await page.goto('/admin/#/schedules');
    for (const s of schedules) {
      const row = page.getByRole('row').filter({ hasText: s.id });
      await row.getByRole('cell', { name: s.config.type, exact: true }).waitFor();
      await row.getByRole('cell', { name: s.config.name, exact: true }).waitFor();
      expect(s.config.prizes.length).toBeGreaterThan(0);
      await row.getByText(`#1: ${formatMoney(String(s.config.prizes[0]!.usdPrize), 'USD').text}`).waitFor();
    }
  });

  it("when a race is in SETTLEMENT, then its standings show each player's wagered USD", async () => {
    const admin = await superAdminApi(env);
    const daily = ((await admin.as('GET', '/leaderboards/schedule')).body as { id: string; config: { type: string } }[]).find(
      (s) => s.config.type === 'DAILY',
    )!;
    const enabled = await admin.as('POST', `/leaderboards/schedule/${daily.id}`, {
      body: { enabled: true, name: 'Daily race', description: 'console', prizes: [{ position: 1, usdPrize: 100 }] },
    });
    expect(enabled.status).toBe(201);
    const now = new Date();
    await runLeaderboardTick({ pool: env.pool, ledger: env.ledger, now, settlementDelayMs: 60_000 });
    const player = await fundedUser(env, '100', 'DBC');
    const betId = `console-bet-${Date.now().toString(36)}`;
    const game = { name: 'Dice', slug: 'dice', type: 'slots', provider: { name: 'Acme' } };
    const placed = await env.ledger.placeBet({
      id: betId,
      userId: player.id,
      roundId: `${betId}-r`,
      gameId: 1,
      gameIdentity: game,
      currencyId: 'DBC',
      amount: '7.5',
      usdAmount: '7.5',
    });
    expect(placed._tag).toBe('Right');
    expect((await env.ledger.settleBet(betId, { payout: '0', usdPayout: '0' }))._tag).toBe('Right');
    // Standings are fixed on entering SETTLEMENT from the bets read model: the bet must be in it first.
    await eventually(async () => {
      const listed = await admin.as('POST', '/bets', {
        body: { page: 1, take: 20, sortBy: 'CREATED_AT', sortOrder: 'desc', where: { status: 'SETTLED', userId: player.id } },
      });
      if (listed.body.total !== 1) throw new Error('the bet is not listed yet');
    }, 20_000);
    const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 5));
    await runLeaderboardTick({ pool: env.pool, ledger: env.ledger, now: tomorrow, settlementDelayMs: 60_000 });
    const [board] = (await admin.as('GET', '/leaderboards?status=SETTLEMENT&type=DAILY')).body.data as { id: string }[];
    const standings = (await admin.as('GET', `/leaderboards/${board!.id}/users`)).body.data as { userId: number; usdAmount: string }[];
    expect(standings.find((u) => u.userId === player.id)?.usdAmount).toBe('7.5');
    const page = superPage;
    await page.goto(`/admin/#/leaderboards/${board!.id}/show`);
    const row = page
      .getByRole('table', { name: 'Standings' })
      .getByRole('row')
      .filter({ hasText: String(player.username) });
    await row.getByTitle('7.5 USD', { exact: true }).getByText('7.50 USD', { exact: true }).waitFor();
    expect(await page.getByRole('table', { name: 'Standings' }).getByText('— USD').count()).toBe(0);
  });

  it('when the dashboard shows daily deposits, then every day of the last 30 is there in UTC, days without deposits at zero', async () => {
    await fundedUser(env, '2', 'DBC');
    const page = superPage;
    await page.goto('/admin/#/');
    const chart = page.getByRole('list', { name: 'Deposits per period' });
    const today = new Date().toISOString().slice(0, 10);
    await chart.getByRole('listitem').filter({ hasText: today }).waitFor();
    const days = await chart.getByRole('listitem').allInnerTexts();
    const expected = Array.from({ length: 30 }, (_, i) => new Date(Date.parse(`${today}T00:00:00Z`) - (29 - i) * 86_400_000)).map((d) =>
      d.toISOString().slice(0, 10),
    );
    expect(days.map((t) => t.slice(0, 10))).toEqual(expected);
    expect(days.filter((t) => /\b0\.00 USD \(0\)/.test(t)).length).toBeGreaterThan(0);
    await page.getByText('Days in UTC').first().waitFor();
  });

  it('when a user has a bet limit and then a self-exclusion, then the limits panel shows each as its own labelled record, money and times as people read them', async () => {
    const user = await env.makeUser();
    const admin = await superAdminApi(env);
    expect((await admin.as('POST', '/user-limits/gambling-limits', { body: { userId: user.id, betLimit: '1234.5678' } })).status).toBe(201);
    const until = new Date(Date.now() + 7 * 86_400_000).toISOString();
    expect((await admin.as('POST', '/user-limits/user-exclusion', { body: { userId: user.id, excludeUntil: until } })).status).toBe(201);
    const exclusion = (await admin.as('GET', `/user-limits/user-exclusion/${user.id}`)).body as { createdAt: string; expiresAt: string };
    const limit = (await admin.as('GET', `/user-limits/gambling-limits/${user.id}`)).body as { createdAt: string; betLimit: string };
    expect(exclusion.createdAt).not.toBe(limit.createdAt);
    const page = superPage;
    await page.goto(`/admin/#/users/${user.id}/show`);
    const excluded = page.getByRole('table', { name: 'Self-exclusion' });
    const betLimit = page.getByRole('table', { name: 'Bet limit' });
    const field = (table: typeof excluded, label: string) =>
      table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label }) });
    // Times in the admin's zone with the zone named (Chromium here runs in the test's zone), the exact instant on hover.
    const zoned = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/;
    const excludedUntil = field(excluded, 'Excluded until').getByTitle(exclusion.expiresAt, { exact: true });
    await excludedUntil.waitFor();
    expect(await excludedUntil.innerText()).toMatch(zoned);
    await field(excluded, 'Set at').getByTitle(exclusion.createdAt, { exact: true }).waitFor();
    expect(await excluded.getByText(/bet/i).count()).toBe(0);
    // USD to cents with a thousands separator; the exact value as the API sent it in the title.
    const most = field(betLimit, 'Each bet at most').getByText('1,234.57 USD', { exact: true });
    await most.waitFor();
    expect(await most.getAttribute('title')).toBe(`${limit.betLimit} USD`);
    expect(limit.betLimit).toMatch(/^1234\.5678/);
    await field(betLimit, 'Set at').getByTitle(limit.createdAt, { exact: true }).waitFor();
    expect(await betLimit.getByTitle(exclusion.createdAt, { exact: true }).count()).toBe(0);
    expect(await betLimit.getByText('expiresAt').count()).toBe(0);
  });

  it('when a list holds more than 25 rows, then it shows 25 by default, merged from the API pages of 20', async () => {
    const user = await env.makeUser();
    const admin = await superAdminApi(env);
    for (let i = 1; i <= 30; i += 1) {
      const tipped = await env.ledger.tip({
        recipientUserId: user.id,
        adminUserId: admin.id,
        currencyId: 'DBC',
        amount: String(i),
        notes: `n${i}`,
      });
      expect(tipped._tag).toBe('Right');
    }
    await eventually(async () => {
      const listed = await admin.as('GET', `/admin-tips?sortBy=ID&sortOrder=desc&page=1&take=1&recipientUserId=${user.id}`);
      if (listed.body.total !== 30) throw new Error(`${String(listed.body.total)} tips listed yet`);
    }, 20_000);
    const page = superPage;
    await page.goto(`/admin/#/admin-tips?filter=${encodeURIComponent(JSON.stringify({ recipientUserId: user.id }))}`);
    await page.getByText('1-25 of 30').waitFor();
    const amounts = (
      await page
        .getByRole('row')
        .filter({ hasText: String(user.username) })
        .allInnerTexts()
    ).map((t) => /(\d+) DBC/.exec(t)?.[1]);
    expect(amounts).toEqual(Array.from({ length: 25 }, (_, i) => String(30 - i)));
  });

  /** The month before the current one (UTC, the calendar of this service), and an instant in it twelve hours before its end. */
  const endedMonth = () => {
    const now = new Date();
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 12 * 3_600_000).toISOString();
    return { period: at.slice(0, 7), at };
  };

  it('when a SuperAdmin closes the ended month after confirming what closing means, then its report and closing balances show', async () => {
    const { period, at } = endedMonth();
    // A deposit whose business time lies in the ended month: the first period anything is booked in, so the next to close.
    const player = await env.makeUser();
    const requested = await env.ledger.requestDeposit({
      externalId: `period-${Date.now().toString(36)}`,
      userId: player.id,
      providerId: 'PROVIDER_A',
      networkId: 'BTC',
      currencyId: 'BTC',
      amount: '1234.56789',
      effectiveAt: at,
    });
    if (requested._tag === 'Left') throw new Error(requested.left._tag);
    const completed = await env.ledger.completeDeposit(requested.right.deposit.id, { txHash: `tx-${period}`, effectiveAt: at });
    expect(completed._tag).toBe('Right');
    const admin = await superAdminApi(env);
    await eventually(async () => {
      const next = (await admin.as('GET', '/ledger/periods')).body.nextToClose as string | null;
      if (next !== period) throw new Error(`next to close is ${String(next)}`);
    }, 30_000);

    const page = superPage;
    await page.goto('/admin/#/periods');
    await page.getByRole('heading', { name: 'Periods', level: 1 }).waitFor();
    await page.getByText('in the time zone UTC').waitFor();
    await page.getByRole('region', { name: 'Next period to close' }).getByText(period, { exact: true }).waitFor();
    await expectAccessible(page, 'periods');
    await page.getByRole('button', { name: `Close ${period}` }).click();
    const dialog = page.getByRole('dialog');
    const says = await dialog.innerText();
    expect(says).toContain(`Nothing posts into ${period} afterwards`);
    expect(says).toContain('booked in the next open period');
    expect(says).toContain('A closed period never reopens.');
    await confirm(page);
    await answered(page, `Close ${period}: done`);

    await page.getByRole('heading', { name: `Closing report of ${period}`, level: 1 }).waitFor();
    const report = (await admin.as('GET', `/ledger/periods/${period}/report`)).body as {
      sha256: string;
      sealed: boolean;
      balances: number;
      report: {
        trialBalance: { currencyId: string; total: string }[];
        liability: { currencyId: string; total: string }[];
        movements: { kind: string; currencyId: string; players: string }[];
      };
    };
    expect(report.sha256).toMatch(/^[0-9a-f]{64}$/);
    const close = page.getByRole('table', { name: 'Close and seal' });
    await close.getByText(report.sha256, { exact: true }).waitFor();
    await close.getByText(report.sealed ? /^Sealed/ : /^Not sealed/).waitFor();
    const btc = <T extends { currencyId: string }>(rows: T[]): T[] => rows.filter((r) => r.currencyId === 'BTC');
    const [trial] = btc(report.report.trialBalance);
    const [liability] = btc(report.report.liability);
    expect(liability?.total).toMatch(/^1234\.56789/);
    const cell = (table: string, amount: string) =>
      page.getByRole('table', { name: table }).getByTitle(`${amount} BTC`, { exact: true }).first();
    expect(await cell('Trial balance', trial!.total).innerText()).toBe(formatMoney(trial!.total, 'BTC').text);
    expect(await cell('Player-funds liability', liability!.total).innerText()).toBe('1,234.56789 BTC');
    expect(btc(report.report.movements).length).toBeGreaterThan(0);
    for (const m of btc(report.report.movements))
      await page.getByRole('table', { name: 'Movements by kind' }).getByRole('row').filter({ hasText: m.kind }).first().waitFor();
    await page.getByText('No late item: nothing dated in a closed period was booked here.').waitFor();
    const balances = (await admin.as('GET', `/ledger/periods/${period}/balances?page=1&limit=25`)).body as {
      total: number;
      balances: { account: string; currencyId: string; balance: string }[];
    };
    expect(balances.total).toBe(report.balances);
    await page.getByText(`1-${Math.min(25, balances.total)} of ${balances.total}`).waitFor();
    const closing = page.getByRole('table', { name: 'Closing balances' });
    for (const b of balances.balances)
      await closing
        .getByRole('row')
        .filter({ hasText: b.account })
        .getByTitle(`${b.balance} ${b.currencyId}`, { exact: true })
        .first()
        .waitFor();
    await expectAccessible(page, 'period-report');
    await shoot(page, 'period-report', true);

    // The list shows it closed; the next period (this month) has not ended: the API's refusal is shown as it came.
    await page.goto('/admin/#/periods');
    const closedRow = page.getByRole('table', { name: 'Closed periods' }).getByRole('row').filter({ hasText: period });
    await closedRow.getByRole('link', { name: `Report of ${period}` }).waitFor();
    const listed = (await admin.as('GET', '/ledger/periods')).body as {
      nextToClose: string;
      closed: { period: string; closedBy: number }[];
    };
    const closedBy = listed.closed.find((c) => c.period === period)!.closedBy;
    await closedRow.getByRole('link', { name: `admin #${closedBy}`, exact: true }).waitFor();
    const next = listed.nextToClose;
    expect(next > period).toBe(true);
    await shoot(page, 'periods');
    await page.getByRole('button', { name: `Close ${next}` }).click();
    await confirm(page);
    await page.getByText(/^PERIOD_NOT_ENDED: /).waitFor();
    expect((await admin.as('GET', `/ledger/periods/${next}/report`)).status).toBe(404);
  });

  it('when an Admin holds balance.view but is not SuperAdmin, then the periods and reports show without a close action', async () => {
    const { period } = endedMonth();
    const reader = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['balance.view'] });
    const page = await newPage();
    await signInPassword(page, reader);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('menuitem', { name: 'Periods' }).click();
    await page
      .getByRole('region', { name: 'Next period to close' })
      .getByText(/^\d{4}-\d{2}$/)
      .waitFor();
    const row = page.getByRole('table', { name: 'Closed periods' }).getByRole('row').filter({ hasText: period });
    await row.waitFor();
    expect(await page.getByRole('button', { name: /^Close \d{4}-\d{2}/ }).count()).toBe(0);
    await expectAccessible(page, 'periods (reader)');
    await row.getByRole('link', { name: `Report of ${period}` }).click();
    await page.getByRole('heading', { name: `Closing report of ${period}`, level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Trial balance' }).waitFor();
    await page.getByRole('table', { name: 'Closing balances' }).waitFor();
    expect(await page.getByRole('button', { name: /^Close \d{4}-\d{2}/ }).count()).toBe(0);
  });

  it('when a SuperAdmin opens each remaining main screen, then it renders with no serious or critical accessibility violation', async () => {
    const page = superPage;
    const funded = await fundedUser(env, '3.5');
    const screens: [string, string, () => Promise<unknown>][] = [
      ['users', '/admin/#/users', () => page.getByRole('columnheader', { name: 'Username' }).waitFor()],
      [
        'deposits',
        '/admin/#/deposits',
        () =>
          page
            .getByText(/^(No .+ found|Confirmed at)$/)
            .first()
            .waitFor(),
      ],
      [
        'bets',
        '/admin/#/bets',
        () =>
          page
            .getByText(/^(No .+ found|Multiplier)$/)
            .first()
            .waitFor(),
      ],
      [
        'accounting',
        '/admin/#/transactions',
        () =>
          page
            .getByText(/^(No .+ found|Before)$/)
            .first()
            .waitFor(),
      ],
      [
        'ledger',
        '/admin/#/ledger',
        async () => {
          await page.getByLabel('User (name, e-mail or id)').fill(String(funded.username));
          await page.getByRole('button', { name: 'Replay' }).click();
          await page.getByRole('table', { name: 'Balances at the point' }).getByText('3.5 BTC', { exact: true }).waitFor();
          await page.getByText(`${String(funded.username)} (#${funded.id}) as of`).waitFor();
          await page.getByRole('button', { name: 'Export' }).click();
          await page
            .getByLabel('Export manifest')
            .getByText(/^[0-9a-f]{64}$/)
            .waitFor();
        },
      ],
      [
        'leaderboards',
        '/admin/#/leaderboards',
        () =>
          page
            .getByText(/^(No .+ found|Start date)$/)
            .first()
            .waitFor(),
      ],
      [
        'schedules',
        '/admin/#/schedules',
        () =>
          page
            .getByText(/^(No .+ found|Enabled)$/)
            .first()
            .waitFor(),
      ],
      ['faq', '/admin/#/faq', () => page.getByRole('region', { name: 'New FAQ' }).waitFor()],
      ['config', '/admin/#/config', () => page.getByText(/^COMMON (has never been saved|as stored)/).waitFor()],
      ['chat', '/admin/#/chat', () => page.getByRole('region', { name: 'Delete a message' }).waitFor()],
      [
        'audit',
        '/admin/#/admin-audit',
        () =>
          page
            .getByText(/^(No .+ found|Action)$/)
            .first()
            .waitFor(),
      ],
      ['profile', '/admin/#/profile', () => page.getByText('Every permission (SuperAdmin).').waitFor()],
    ];
    const failures: string[] = [];
    for (const [name, url, ready] of screens) {
      await page.goto(url);
      await ready().catch(async (e: unknown) => {
        console.log(`screen ${name} did not render; its text:`, await page.locator('body').innerText());
        throw e;
      });
      const violations = await seriousViolations(page);
      if (violations.length > 0) failures.push(`${name}: ${JSON.stringify(violations)}`);
      await shoot(page, name);
    }
    expect(failures).toEqual([]);
  });

  it('when every screen above was used, then the console ran under its Content-Security-Policy with nothing refused', () => {
    expect(cspViolations).toEqual([]);
  });

  it('when every screen above was loaded, then nothing it asked for was answered 404, its favicon included', async () => {
    const page = await newPage();
    await page.goto('/admin/');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const icon = await page.request.get('/favicon.ico');
    expect([icon.status(), icon.headers()['content-type']]).toEqual([200, 'image/x-icon']);
    expect(notFound).toEqual([]);
  });

  it('when a page of another origin frames the console, then the browser refuses to show it there', async () => {
    const framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>framer</title><iframe src="${base}/admin/"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const page = await newPage();
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      const frame = await eventually(async () => {
        const child = page.frames().find((f) => f !== page.mainFrame());
        if (!child) throw new Error('no frame yet');
        return child;
      }, 20_000);
      // Blocked by frame-ancestors 'none' (and X-Frame-Options DENY): the frame never shows the console's sign-in.
      await eventually(async () => {
        if (!refusals.some((t) => /frame-ancestors|X-Frame-Options|Refused to (display|frame)/i.test(t)))
          throw new Error('not yet refused');
      }, 20_000);
      expect(await frame.locator('text=Sign in').count()).toBe(0);
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });
});
