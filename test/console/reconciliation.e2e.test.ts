import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, expectAccessible, launchChromium, signInConsole } from '../support/browser.js';
import { eventuallyTrue } from '../support/eventually.js';

// As console.e2e.test.ts: the tracked screenshots in docs/console/ are rewritten only with CONSOLE_SCREENSHOTS_DIR=docs/console.
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'console-reconciliation-'));
mkdirSync(SHOTS, { recursive: true });
const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

if (!chromiumFound) console.log(`reconciliation browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);

// Generous bounds, not sleeps: on a loaded 2-CPU machine Chromium and the projector can take many seconds per step.
describe.skipIf(!chromiumFound)('the console Reconciliation screen in Chromium', { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  let dir: string;
  const contexts: BrowserContext[] = [];

  /** A fresh context in a zone other than UTC: the range is typed in the admin's zone, which the screen names. */
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: env.adminUrl, timezoneId: 'Europe/Malta' });
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    return context.newPage();
  };
  const signIn = async (page: Page, user: { email: string; password: string }) => {
    await signInConsole(page, user);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('console_reconciliation', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    dir = mkdtempSync(path.join(tmpdir(), 'statement-'));
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('when a finance admin uploads a statement, then the run shows its totals and breaks, and a break is resolved with a note after confirming', async () => {
    const user = await env.makeUser();
    const requested = await env.ledger.requestDeposit({
      externalId: 'console-dep-1',
      userId: user.id,
      providerId: 'TEST',
      networkId: 'BTC',
      currencyId: 'BTC',
      amount: '0.25',
    });
    if (requested._tag === 'Left') throw new Error(requested.left._tag);
    const done = await env.ledger.completeDeposit(requested.right.deposit.id, { txHash: '0xconsole' });
    if (done._tag === 'Left') throw new Error(done.left._tag);
    await eventuallyTrue('the deposit in the read model', async () => {
      const { rows } = await env.pool.query(`SELECT 1 FROM deposits WHERE external_id = 'console-dep-1' AND status = 'COMPLETE'`);
      return rows.length === 1;
    });
    const file = path.join(dir, 'october.csv');
    writeFileSync(
      file,
      [
        'Transaction ID,Type,Merchant Reference,Tx Hash,Currency,Amount,Status,Date',
        'T-1,DEPOSIT,console-dep-1,0xconsole,BTC,0.25,SUCCESS,2026-10-03T09:15:00Z',
        'T-2,DEPOSIT,not-in-ledger,,BTC,1.5,SUCCESS,2026-10-04T10:00:00Z',
        '',
      ].join('\r\n'),
    );

    const manager = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['reconciliation.view', 'reconciliation.manage'] });
    const page = await newPage();
    await signIn(page, manager);
    await page.getByRole('menuitem', { name: 'Reconciliation' }).click();
    const upload = page.getByRole('region', { name: 'Upload a statement' });
    await upload.getByText('Europe/Malta', { exact: true }).waitFor();
    await expectAccessible(page, 'reconciliation');
    await upload.getByLabel('Statement file (CSV)').setInputFiles(file);
    await upload.getByLabel('From (Europe/Malta)').fill('2020-01-01T00:00:00');
    await upload.getByLabel('To (Europe/Malta)').fill('2099-01-01T00:00:00');
    await upload.getByRole('button', { name: 'Reconcile' }).click();

    await page.getByRole('heading', { name: 'Reconciliation run october.csv', level: 1 }).waitFor();
    const totals = page.getByRole('table', { name: 'Totals per currency' });
    await totals.getByRole('row').filter({ hasText: 'Missing in the ledger' }).filter({ hasText: '1.5' }).waitFor();
    await totals.getByRole('row').filter({ hasText: 'Matched' }).filter({ hasText: '0.25' }).waitFor();
    const breaks = page.getByRole('table', { name: 'Items: Every break (1)' });
    const row = breaks.getByRole('row').filter({ hasText: 'T-2' });
    await row.waitFor();
    await expectAccessible(page, 'reconciliation run');
    await shoot(page, 'reconciliation-run');

    await row.getByRole('button', { name: 'Resolve item 2' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The ledger is not changed', { exact: false }).waitFor();
    await expectAccessible(page, 'resolve dialog');
    await dialog.getByLabel('Note').fill('Test line of the provider; they confirmed it was never paid');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Item 2 resolved', { exact: true }).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await row.getByText(/^Test line of the provider; they confirmed it was never paid/).waitFor();
    await page.getByRole('menuitem', { name: 'Reconciliation' }).click();
    await page.getByRole('table', { name: 'Runs' }).getByRole('link', { name: 'Open october.csv' }).waitFor();
    await shoot(page, 'reconciliation');

    const { rows } = await env.pool.query<{ action: string; admin_user_id: string }>(
      `SELECT action, admin_user_id FROM admin_audit_records WHERE action LIKE 'reconciliation.%' ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { action: 'reconciliation.upload', admin_user_id: String(manager.id) },
      { action: 'reconciliation.resolve', admin_user_id: String(manager.id) },
    ]);
    expect((await env.pool.query(`SELECT 1 FROM deposits WHERE external_id = 'not-in-ledger'`)).rowCount).toBe(0);
  });

  it('when an admin holds reconciliation.view only, then runs show without the upload form', async () => {
    const reader = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['reconciliation.view'] });
    const page = await newPage();
    await signIn(page, reader);
    await page.getByRole('menuitem', { name: 'Reconciliation' }).click();
    await page.getByRole('table', { name: 'Runs' }).getByRole('link', { name: 'Open october.csv' }).waitFor();
    expect(await page.getByRole('region', { name: 'Upload a statement' }).count()).toBe(0);
    await expectAccessible(page, 'reconciliation (reader)');
  });
});
