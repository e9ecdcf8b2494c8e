import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, expectAccessible, launchChromium } from '../support/browser.js';
import { fundedUser } from '../support/money-env.js';

// As console.e2e.test.ts: the tracked screenshots in docs/console/ are rewritten only with CONSOLE_SCREENSHOTS_DIR=docs/console.
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'console-erasure-'));
mkdirSync(SHOTS, { recursive: true });

if (!chromiumFound) console.log(`erasure browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);

// Generous bounds, not sleeps: on a loaded 2-CPU machine Chromium and the projector can take many seconds per step.
describe.skipIf(!chromiumFound)('erasing a person from the user page', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  let page: Page;

  const accessible = (screen: string) => expectAccessible(page, screen);
  const shoot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('console_erasure', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: env.adminUrl });
    context.setDefaultTimeout(60_000);
    page = await context.newPage();
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    await page.goto('/admin/');
    await page.getByLabel('E-mail').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when the typed confirmation matches and the retention rule is forced with a reason, then the person reads as erased', async () => {
    const player = await fundedUser(env, '10', 'BTC');
    await page.goto(`/admin/#/users/${player.id}/show`);
    await page.getByRole('heading', { name: new RegExp(String(player.username)) }).waitFor();
    await page.getByRole('button', { name: 'Erase personal data' }).click();
    const dialog = page.getByRole('dialog', { name: `Erase personal data of #${player.id}` });
    await dialog.waitFor();
    await dialog.getByLabel(/^Reason/).fill('DSR-2026-0142');
    const eraseButton = dialog.getByRole('button', { name: 'Erase', exact: true });
    // A confirmation that does not name this user leaves the button disabled.
    await dialog.getByLabel(/^Type ERASE/).fill('ERASE');
    expect(await eraseButton.isDisabled()).toBe(true);
    await dialog.getByLabel(/^Type ERASE/).fill(`ERASE ${player.id}`);
    expect(await eraseButton.isDisabled()).toBe(false);
    await accessible('erase dialog');
    await shoot('erasure-dialog');

    // The player deposited a moment ago: the retention rule holds and the API refuses; nothing is erased.
    await eraseButton.click();
    await dialog.getByRole('alert').filter({ hasText: 'RETENTION_HOLDS' }).waitFor();
    expect((await env.pool.query('SELECT 1 FROM person_keys WHERE user_id = $1', [player.id])).rowCount).toBe(1);
    await accessible('erase refused');

    await dialog.getByLabel(/^Force/).check();
    await eraseButton.click();
    await page.getByText('Personal data erased', { exact: true }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: /\[erased\]/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Erase personal data' }).count()).toBe(0);

    const { rows } = await env.pool.query<{ email: string | null; username: string | null }>(
      'SELECT email, username FROM users WHERE id = $1',
      [player.id],
    );
    expect(rows).toEqual([{ email: null, username: '[erased]' }]);
    expect((await env.pool.query('SELECT 1 FROM person_keys WHERE user_id = $1', [player.id])).rowCount).toBe(0);
    const audit = await env.pool.query('SELECT details FROM admin_audit WHERE target_user_id = $1 AND action = $2', [
      player.id,
      'user.erase',
    ]);
    expect(audit.rows[0]?.details).toMatchObject({ reason: 'DSR-2026-0142', forced: true });
    await accessible('erased user');
  });
});
