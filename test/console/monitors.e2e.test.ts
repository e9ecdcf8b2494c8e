import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';
import { fundedUser } from '../support/money-env.js';
import { must } from '../support/realtime-ledger.js';

const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'monitors-shots-'));
mkdirSync(SHOTS, { recursive: true });

/** Monitors in Chromium: a SuperAdmin defines one and a webhook, a bet past it raises an alert the screen lists. */
describe.skipIf(!chromiumFound)('monitors in the console', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('monitors_console', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: env.adminUrl });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    page = await context.newPage();
    await signInConsole(page, await env.makeUser({ roles: ['User', 'SuperAdmin'] }));
    await page.getByRole('menuitem', { name: 'Monitors' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when a monitor and a webhook are created and a bet wins past it, then the alert is listed once', async () => {
    await page.getByRole('menuitem', { name: 'Monitors' }).click();
    await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    const create = page.getByRole('region', { name: 'New monitor' });
    await create.getByLabel('Threshold (USD)').fill('500');
    await create.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('table', { name: 'Monitors' }).getByRole('row').filter({ hasText: 'win over' }).waitFor();

    const hook = page.getByRole('region', { name: 'New webhook' });
    await hook.getByLabel('URL').fill('http://127.0.0.1:9/alerts');
    await hook.getByLabel('Signing secret (16+ characters)').fill('a-secret-of-twenty-chars');
    await hook.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('table', { name: 'Webhooks' }).getByText('http://127.0.0.1:9/alerts').waitFor();

    // A bet that wins 2,000 USD, and one that wins 100: only the first passes the monitor.
    const player = await fundedUser(env, '1000', 'USDT');
    const game = { gameId: 1, gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } } };
    for (const [id, payout] of [
      ['mon-big', '2000'],
      ['mon-small', '100'],
    ] as const) {
      must(
        await env.ledger.placeBet({
          id,
          userId: player.id,
          roundId: `r-${id}`,
          ...game,
          currencyId: 'USDT',
          amount: '50',
          usdAmount: '50',
        }),
      );
      must(await env.ledger.settleBet(id, { payout, usdPayout: payout }));
    }
    const alerts = page.getByRole('table', { name: 'Alerts' });
    for (let i = 0; i < 60 && !(await alerts.isVisible()); i++) {
      await page.reload();
      await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    }
    await alerts.getByText('bet:mon-big').waitFor();
    expect(await alerts.getByText('bet:mon-small').count()).toBe(0);
    await expectAccessible(page, 'monitors');
    await page.screenshot({ path: path.join(SHOTS, 'monitors.png'), fullPage: true });
  });
});
