import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import type { Projector } from '../../src/projections/index.js';
import { bearer, BYPASS, call, createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';
import { balanceOf } from '../support/money-env.js';

/** The Deposits screen: a deposit held past the player's deposit limit is marked and released with a reason. */
describe.skipIf(!chromiumFound)('held deposits in the admin console', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let projector: Projector;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('held-deposits-console', LOCAL_CONSOLE);
    projector = env.startProjector();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await projector?.stop();
    await env?.close();
  });

  it('when an admin releases a held deposit from the Deposits list, then the player is credited exactly its amount', async () => {
    const player = await env.makeUser();
    const editor = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user-limit.edit'] });
    const signedIn = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: editor.email, password: editor.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    const set = await call(env.adminUrl, 'POST', '/user-limits/deposit-loss-limits', {
      headers: bearer(signedIn.cookies.access_token?.value ?? ''),
      body: { userId: player.id, kind: 'deposit', window: '24h', limit: '10' },
    });
    expect(set.status).toBe(200);
    const requested = await env.ledger.requestDeposit({
      externalId: 'held-console-1',
      userId: player.id,
      providerId: 'PROVIDER_A',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '45.5',
      usdAmount: '45.5',
      txHash: '0xheld-console',
    });
    if (requested._tag === 'Left') throw new Error(requested.left._tag);
    const depositId = requested.right.deposit.id;
    expect((await env.ledger.completeDeposit(depositId, {}))._tag).toBe('Right');
    expect(await balanceOf(env, player.id, 'USDT')).toBe('0');

    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['deposits.view', 'user-limit.edit'] });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, baseURL: env.adminUrl });
    context.setDefaultTimeout(60_000);
    const page: Page = await context.newPage();
    await signInConsole(page, admin);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.goto('/admin/#/deposits');
    const row = page.getByRole('row').filter({ hasText: depositId });
    await row.getByText('HELD', { exact: true }).waitFor();
    await expectAccessible(page, 'deposits with a held deposit');

    await row.getByRole('button', { name: 'Release' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(String(player.username), { exact: false }).waitFor();
    await expect(dialog.textContent()).resolves.toContain('45.5');
    await expect(dialog.textContent()).resolves.toContain('USDT');
    await dialog.getByLabel('Release reason').fill('source of funds checked');
    await expectAccessible(page, 'release confirmation');
    await dialog.getByRole('button', { name: 'Release' }).click();
    await page.getByText("Released: the deposit is in the player's balance", { exact: true }).waitFor();
    await row.getByText('RELEASED', { exact: true }).waitFor();
    expect(await balanceOf(env, player.id, 'USDT')).toBe('45.5');
  });
});
