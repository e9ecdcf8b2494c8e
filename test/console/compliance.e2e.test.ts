import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createLedger } from '../../src/commands/ledger.js';
import { amlHooks, createAml } from '../../src/compliance/aml.js';
import { amlSettingsFrom } from '../../src/compliance/aml.settings.js';
import { call, createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';

// As console.e2e.test.ts: the tracked screenshots in docs/console/ are rewritten only with CONSOLE_SCREENSHOTS_DIR=docs/console.
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'console-compliance-'));
mkdirSync(SHOTS, { recursive: true });
const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/** The console's compliance screens: a player's deposit and loss limits on the user page, and the AML flags. */
describe.skipIf(!chromiumFound)('compliance in the admin console', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: env.adminUrl });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    return context.newPage();
  };
  const signInPassword = async (page: Page, user: { email: string; password: string }) => {
    await signInConsole(page, user);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  };
  const answered = async (page: Page, notice: string) => {
    await page.getByText(notice, { exact: true }).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('compliance-console', LOCAL_CONSOLE);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when an admin sets, raises and removes each deposit and loss limit on the player page, then cuts show at once and the rest as pending', async () => {
    const player = await env.makeUser();
    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.view', 'user-limit.view', 'user-limit.edit'] });
    const page = await newPage();
    await signInPassword(page, admin);
    await page.goto(`/admin/#/users/${player.id}/show`);
    await page.getByRole('tab', { name: 'Limits', exact: true }).click();
    const table = page.getByRole('table', { name: 'Deposit and loss limits' });
    await table.waitFor();
    const row = (kind: string, window: string) => table.locator(`tr[data-limit="${kind}-${window}"]`);
    await row('loss', '24h').getByText('None', { exact: true }).waitFor();
    await expectAccessible(page, 'user limits');
    const form = page.getByRole('region', { name: 'Deposit or loss limit' });
    const choose = async (label: string, option: string) => {
      await form.getByRole('combobox', { name: label }).click();
      await page.getByRole('option', { name: option, exact: true }).click();
    };
    const setLimit = async (kindName: string, windowName: string, limit: string) => {
      await choose('Limit', kindName);
      await choose('Window', windowName);
      await form.getByLabel('Limit (USD, empty to remove)').fill(limit);
      await form.getByRole('button', { name: 'Set limit' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      await answered(page, 'Deposit or loss limit: done');
    };
    for (const [kind, kindName, window, windowName] of [
      ['deposit', 'Deposit limit', '7d', '7 days'],
      ['loss', 'Loss limit', '24h', '24 hours'],
    ] as const) {
      await setLimit(kindName, windowName, '50');
      await row(kind, window).getByText('50.00 USD', { exact: true }).waitFor();
      await setLimit(kindName, windowName, '80');
      // A raise waits 24 hours: the 50 stays in force and the 80 shows as pending, with its time.
      await row(kind, window)
        .getByText(/80\.00 USD from/)
        .waitFor();
      expect(await row(kind, window).getByText('50.00 USD', { exact: true }).count()).toBe(1);
      await setLimit(kindName, windowName, '');
      await row(kind, window)
        .getByText(/Removal from/)
        .waitFor();
      await setLimit(kindName, windowName, '20');
      await row(kind, window).getByText('20.00 USD', { exact: true }).waitFor();
      expect(await row(kind, window).getByText(/from/).count()).toBe(0);
    }
    const reply = await call(env.adminUrl, 'GET', `/user-limits/deposit-loss-limits/${player.id}`);
    expect(reply.status).toBe(401);
    await expectAccessible(page, 'user limits set');
  });

  it('when an officer sets a KYC level on the player page behind a confirmation, then the summary says it in words', async () => {
    const player = await env.makeUser();
    const officer = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.view', 'kyc.view', 'kyc.edit'] });
    const page = await newPage();
    await signInPassword(page, officer);
    await page.goto(`/admin/#/users/${player.id}/show`);
    const account = page.getByRole('table', { name: 'Account' });
    await account.getByText('Not verified (level 0, nothing on record)', { exact: true }).waitFor();
    const form = page.getByRole('region', { name: 'KYC level' });
    await expectAccessible(page, 'KYC level form');
    await form.getByRole('combobox', { name: 'Level' }).click();
    await page.getByRole('option', { name: 'LEVEL_2', exact: true }).click();
    await form.getByRole('button', { name: 'Set level' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Set the KYC level of ${player.username} to Verified to level 2 of 4?`).waitFor();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await answered(page, 'KYC level: done');
    await account.getByText('Verified to level 2 of 4', { exact: true }).waitFor();
    expect((await env.users.load(player.id)).status === 'registered' && (await env.users.load(player.id))).toMatchObject({
      kyc: { level: 'LEVEL_2', verificationPending: false },
    });
    await expectAccessible(page, 'KYC level set');
    await shoot(page, 'player-kyc');
  });

  it('when linked deposits reach the AML threshold, then the flag is listed, assigned to the officer and cleared with a note, and stays listed', async () => {
    const player = await env.makeUser();
    const aml = createAml({ store: env.store, pool: env.pool, settings: amlSettingsFrom({ AML_THRESHOLD_USD: '100' }) });
    const ledger = createLedger({ store: env.store, pool: env.pool, aml: amlHooks(aml, env.users) });
    const requested = await ledger.requestDeposit({
      externalId: `aml-e2e-${player.id}`,
      userId: player.id,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '120',
      usdAmount: '120',
    });
    expect(requested._tag).toBe('Right');
    const officer = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['kyc.view', 'kyc.edit'] });
    const page = await newPage();
    await signInPassword(page, officer);
    await page.getByRole('menuitem', { name: 'AML flags' }).click();
    const table = page.getByRole('table', { name: 'AML flags' });
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: String(player.id), exact: true }) });
    await row.getByText('Open', { exact: true }).waitFor();
    expect(await row.getByText('120.00 USD', { exact: true }).count()).toBe(1);
    await expectAccessible(page, 'aml flags');
    await shoot(page, 'aml-flags');
    await row.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByText('Assign to me: done', { exact: true }).waitFor();
    await row.getByRole('cell', { name: String(officer.id), exact: true }).waitFor();
    await row.getByRole('button', { name: 'Clear', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Note').fill('Salary from employer, payslips on file');
    await page.getByRole('dialog').getByRole('button', { name: 'Clear flag' }).click();
    await answered(page, 'Clear flag: done');
    await row.getByText('Cleared', { exact: true }).waitFor();
    await row.getByText('Salary from employer, payslips on file').waitFor();
    expect(await row.getByRole('button', { name: 'Clear', exact: true }).count()).toBe(0);
    await expectAccessible(page, 'aml flags cleared');
  });
});
