import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { call, createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';
import { balanceOf, fundedUser } from '../support/money-env.js';

/** The player page's commands an admin uses every day: a deduction, a self-exclusion set and lifted, a bet limit. */
describe.skipIf(!chromiumFound)("the player page's money and limit commands", { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;

  const region = (name: string) => page.getByRole('region', { name });
  /** What the API answers the signed-in admin, asked from the page (its session cookie). */
  const read = (path: string): Promise<Record<string, unknown>> =>
    page.evaluate(async (p) => (await fetch(p, { credentials: 'same-origin' })).json() as Promise<Record<string, unknown>>, path);
  /** A confirmed command answered: its notice shows and its dialog is gone (the page behind a dialog is aria-hidden). */
  const confirmAndWait = async (notice: string) => {
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(notice, { exact: true }).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('console_player_actions', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: env.adminUrl });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    page = await context.newPage();
    await signInConsole(page, admin);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
  });

  it('when an admin deducts from a player, then the confirmation names the exact amount and the balance falls by it', async () => {
    const user = await fundedUser(env, '10', 'DBC');
    await page.goto(`/admin/#/users/${user.id}/show`);
    const balances = page.getByRole('table', { name: 'Balances' });
    await balances.getByText('10 DBC', { exact: true }).waitFor();
    await region('Deduct').getByLabel('Amount').fill('3.25');
    await region('Deduct').getByLabel('Notes').fill('chargeback');
    await region('Deduct').getByRole('button', { name: 'Deduct' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain(`Deduct 3.25 DBC from ${String(user.username)}?`);
    await confirmAndWait('Deduct: done');
    await balances.getByText('6.75 DBC', { exact: true }).waitFor();
    expect(await balanceOf(env, user.id, 'DBC')).toBe('6.75');
  });

  it('when a tip goes from the tips screen to a player picked by part of their name, then the confirmation names them and their balance rises', async () => {
    const user = await env.makeUser();
    await page.goto('/admin/#/admin-tips');
    const form = region('Send a tip');
    const recipient = form.getByRole('combobox', { name: 'Recipient (name, e-mail or id)' });
    await recipient.fill(String(user.username).slice(0, -2));
    await page.getByRole('option', { name: new RegExp(`^${String(user.username)} \\(#${user.id}\\)`) }).click();
    await form.getByLabel('Amount').fill('1.5');
    await form.getByRole('button', { name: 'Send tip' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain(`Tip 1.5 DBC to ${String(user.username)} (#${user.id})?`);
    await confirmAndWait('Send a tip: done');
    expect(await balanceOf(env, user.id, 'DBC')).toBe('1.5');
    await expectAccessible(page, 'admin tips with a recipient picked');
  });

  it('when an admin sets a self-exclusion and a bet limit and lifts the exclusion, then each record shows, the time with its zone, and the API agrees', async () => {
    const user = await env.makeUser();
    await page.goto(`/admin/#/users/${user.id}/show`);
    await page.getByRole('tab', { name: 'Limits', exact: true }).click();
    const exclusion = page.getByRole('table', { name: 'Self-exclusion' });
    await page.getByRole('tabpanel').getByText('None in force.').first().waitFor();

    await region('Self-exclusion').getByLabel('Until').fill('2031-02-03T04:05');
    await region('Self-exclusion').getByRole('button', { name: 'Exclude' }).click();
    // The confirmation names the instant in the admin's zone, with the zone (the input itself shows none).
    expect(await page.getByRole('dialog').textContent()).toMatch(
      new RegExp(`Exclude ${String(user.username)} until 2031-02-03 04:05:00 \\S+\\?`),
    );
    await confirmAndWait('Self-exclusion: done');
    const until = (await read(`/user-limits/user-exclusion/${user.id}`)) as { expiresAt: string };
    expect(new Date(until.expiresAt).getTime()).toBe(new Date('2031-02-03T04:05').getTime()); // Chromium and Node share the zone
    await exclusion.getByTitle(until.expiresAt, { exact: true }).waitFor();

    await region('Bet limit').getByLabel('Bet limit (USD)').fill('25');
    await region('Bet limit').getByRole('button', { name: 'Set bet limit' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain(`Limit each bet of ${String(user.username)} to 25 USD?`);
    await confirmAndWait('Bet limit: done');
    await page.getByRole('table', { name: 'Bet limit' }).getByText('25.00 USD', { exact: true }).waitFor();
    expect((await read(`/user-limits/gambling-limits/${user.id}`)).betLimit).toMatch(/^25(\.0*)?$/);
    await expectAccessible(page, 'player limits set');

    await page.getByRole('button', { name: 'Lift self-exclusion' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain('Lift the self-exclusion?');
    await confirmAndWait('Lift self-exclusion: done');
    await exclusion.waitFor({ state: 'detached' });
    expect(await read(`/user-limits/user-exclusion/${user.id}`)).toEqual({});
    // The bet limit stays: lifting one record leaves the other.
    await page.getByRole('table', { name: 'Bet limit' }).getByText('25.00 USD', { exact: true }).waitFor();
    expect((await call(env.adminUrl, 'GET', `/user-limits/user-exclusion/${user.id}`)).status).toBe(401);
  });
});
