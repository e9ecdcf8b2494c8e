import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { BYPASS, bearer, call, createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { must } from '../support/realtime-ledger.js';

const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'finance-shots-'));
mkdirSync(SHOTS, { recursive: true });
if (!chromiumFound) console.log(`finance console tests skipped: no Chromium at ${CHROMIUM_PATH}`);

const now = new Date();
const lastMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const period = lastMonthStart.toISOString().slice(0, 7);
const thisMonth = now.toISOString().slice(0, 7);
const today = now.toISOString().slice(0, 10);
const dayOf = (d: number): string => new Date(lastMonthStart.getTime() + d * 86_400_000 + 3_600_000).toISOString();
const game = {
  gameId: 5,
  gameIdentity: { name: 'Sweet Bonanza', slug: 'sweet-bonanza', type: 'SLOTS', provider: { name: 'Pragmatic Play' } },
};

/** The finance workspace in Chromium: close a month with its trial balance shown first, read and download each report, a statement. */
describe.skipIf(!chromiumFound)('finance workspace in the console', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;
  let player: number;

  const accessible = (screen: string) => expectAccessible(page, screen);
  const shoot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('finance_console', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    // Last month: a deposit, three bets (a win, a loss, a rollback) and a withdrawal request, all at business times in it.
    player = (await env.makeUser()).id;
    const dep = must(
      await env.ledger.requestDeposit({
        externalId: 'fin-dep-1',
        userId: player,
        providerId: 'TEST',
        networkId: 'TRC20',
        currencyId: 'USDT',
        amount: '1000',
        usdAmount: '1000',
        effectiveAt: dayOf(2),
      }),
    );
    must(await env.ledger.completeDeposit(dep.deposit.id, { txHash: 'fin-tx-1', effectiveAt: dayOf(2) }));
    const bet = (id: string, day: number) =>
      env.ledger.placeBet({
        id,
        userId: player,
        roundId: `r-${id}`,
        ...game,
        currencyId: 'USDT',
        amount: '100',
        usdAmount: '100',
        effectiveAt: dayOf(day),
      });
    must(await bet('fin-b1', 3));
    must(await env.ledger.settleBet('fin-b1', { payout: '250', usdPayout: '250', effectiveAt: dayOf(3) }));
    must(await bet('fin-b2', 4));
    must(await env.ledger.settleBet('fin-b2', { payout: '0', usdPayout: '0', effectiveAt: dayOf(4) }));
    must(await bet('fin-b3', 5));
    must(await env.ledger.rollbackBet('fin-b3', { effectiveAt: dayOf(5) }));
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    // This month (back-office actions happen now): a goodwill tip, for the adjustments report.
    must(
      await env.ledger.tip({
        recipientUserId: player,
        adminUserId: admin.id,
        currencyId: 'USDT',
        amount: '25',
        tag: 'LOSSBACK',
        notes: 'goodwill',
      }),
    );
    const signIn = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: admin.email, password: admin.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    const token = signIn.cookies.access_token?.value ?? '';
    await eventually(async () => {
      const next = (await call(env.adminUrl, 'GET', '/ledger/periods', { headers: bearer(token) })).body.nextToClose;
      if (next !== period) throw new Error(`next to close: ${String(next)}`);
    }, 30_000);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: env.adminUrl, acceptDownloads: true });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    page = await context.newPage();
    await signInConsole(page, admin);
    await page.getByRole('menuitem', { name: 'Finance reports' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when a SuperAdmin closes the month, then the confirmation shows its trial balance and liability first', async () => {
    await page.goto('/admin/#/periods');
    await page.getByRole('button', { name: `Close ${period}` }).click();
    const dialog = page.getByRole('dialog');
    const totals = dialog.getByRole('table', { name: `Totals of ${period}` });
    await totals.getByRole('row').filter({ hasText: 'USDT' }).waitFor();
    expect(await totals.getByRole('row').filter({ hasText: 'USDT' }).innerText()).toMatch(/USDT\s+0$/);
    // The player holds 1,000 - 100 + 250 - 100 - 100 + 100 = 1,050 USDT.
    await dialog
      .getByRole('table', { name: `Liability of ${period}` })
      .getByText('1,050')
      .first()
      .waitFor();
    await shoot('finance-close-preview');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: `Closing report of ${period}`, level: 1 }).waitFor();
  });

  it('when each report is opened for the month and downloaded, then its rows show and the file matches its SHA-256', async () => {
    await page.getByRole('menuitem', { name: 'Finance reports' }).click();
    await page.getByRole('heading', { name: 'Finance reports', level: 1 }).waitFor();
    for (const report of ['Trial balance', 'Player-funds liability', 'GGR and NGR', 'Payments', 'Admin adjustments']) {
      await page.getByRole('combobox', { name: 'Report' }).click();
      await page.getByRole('option', { name: report, exact: true }).click();
      const region = page.getByRole('region', { name: report });
      if (report === 'Trial balance' || report === 'Player-funds liability') await region.getByLabel('Period (YYYY-MM)').fill(period);
      else {
        // The flows for a range of business days, with the time zone said beside the dates (the tip is from today).
        const [from, to] = report === 'Admin adjustments' ? [`${thisMonth}-01`, today] : [`${period}-01`, `${period}-10`];
        await region.getByRole('combobox', { name: 'Scope' }).click();
        await page.getByRole('option', { name: 'Business days' }).click();
        await region.getByLabel('From (inclusive)').fill(from);
        await region.getByLabel('To (inclusive)').fill(to);
        await region.getByText('Business time, days in UTC').waitFor();
      }
      await region.getByRole('button', { name: 'Show' }).click();
      await region.getByRole('table', { name: report, exact: true }).waitFor();
      if (report === 'GGR and NGR') {
        // Stakes 300, payouts 250, a 100 stake refunded: GGR -50 on the bets' days.
        const totals = region.getByRole('table', { name: `${report} totals` });
        expect(await totals.getByRole('row').nth(1).innerText()).toContain('-50');
      }
      const download = page.waitForEvent('download');
      await region.getByRole('button', { name: 'Download CSV' }).click();
      expect((await download).suggestedFilename()).toMatch(/\.csv$/);
      await region.getByText('(the file received matches)').waitFor();
      await accessible(`finance report ${report}`);
      if (report === 'GGR and NGR') await shoot('finance-reports');
    }
  });

  it("when a player's account statement is opened from their page, then it shows opening, movements and closing", async () => {
    await page.goto(`/admin/#/users/${player}/show`);
    await page.getByRole('link', { name: 'Account statement' }).click();
    await page.getByRole('heading', { name: `Account statement of user #${player}`, level: 1 }).waitFor();
    await page.getByLabel('Period (YYYY-MM)').fill(period);
    await page.getByRole('button', { name: 'Show' }).click();
    const table = page.getByRole('table', { name: 'Statement' });
    await table.getByRole('row').filter({ hasText: 'CLOSING' }).waitFor();
    expect(await table.getByRole('row').filter({ hasText: 'CLOSING' }).innerText()).toContain('1,050');
    // The deposit, three stakes, the win and the refund (a zero payout moves nothing).
    expect(await table.getByRole('row').filter({ hasText: 'MOVEMENT' }).count()).toBe(6);
    await accessible('account statement');
    await shoot('finance-statement');
  });
});
