import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createChat } from '../../src/commands/chat.js';
import { putSiteConfig } from '../../src/commands/site-config.js';
import { eventually } from '../support/eventually.js';
import { createAuthEnv, type AuthEnv, LOCAL_CONSOLE } from '../support/auth-env.js';
import { chromiumFound, CHROMIUM_PATH, expectAccessible, launchChromium } from '../support/browser.js';
import { balanceOf, pendingWithdrawal } from '../support/money-env.js';

// As console.e2e.test.ts: the tracked screenshots in docs/console/ are rewritten only with CONSOLE_SCREENSHOTS_DIR=docs/console.
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? path.resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : mkdtempSync(path.join(tmpdir(), 'console-daily-'));
mkdirSync(SHOTS, { recursive: true });
if (!chromiumFound) console.log(`console daily-work browser tests skipped: no Chromium at ${CHROMIUM_PATH}`);

/** A player with a settled bet, a completed deposit, a PENDING withdrawal and a tip: every tab of their page has a row. */
const busyPlayer = async (env: AuthEnv, adminId: number) => {
  const { user, withdrawal } = await pendingWithdrawal(env, '1.5', '10');
  const placed = await env.ledger.placeBet({
    id: `bet-${user.id}`,
    userId: user.id,
    roundId: `round-${user.id}`,
    gameId: 7,
    gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINAL', provider: { name: 'House' } },
    currencyId: 'BTC',
    amount: '0.5',
  });
  if (placed._tag === 'Left') throw new Error(placed.left._tag);
  const settled = await env.ledger.settleBet(placed.right.bet.id, { payout: '1' });
  if (settled._tag === 'Left') throw new Error(settled.left._tag);
  const tipped = await env.ledger.tip({ recipientUserId: user.id, adminUserId: adminId, currencyId: 'DBC', amount: '3', notes: 'welcome' });
  if (tipped._tag === 'Left') throw new Error(tipped.left._tag);
  return { user, withdrawal, betId: placed.right.bet.id };
};

// Generous bounds, not sleeps: on a loaded 2-CPU machine Chromium and the projector can take many seconds per step.
describe.skipIf(!chromiumFound)("an admin's day in the console", { timeout: 240_000 }, () => {
  let env: AuthEnv;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;
  let superAdmin: { id: number; email: string; password: string };

  const accessible = (screen: string) => expectAccessible(page, screen);
  const shoot = (name: string, fullPage = false) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await createAuthEnv('console_daily', LOCAL_CONSOLE, { readConsistencyTimeoutMs: 20_000 });
    env.startProjector();
    browser = await launchChromium();
    superAdmin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: env.adminUrl });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    page = await context.newPage();
    await page.goto('/admin/');
    await page.getByLabel('E-mail').fill(superAdmin.email);
    await page.getByLabel('Password').fill(superAdmin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
  });

  it("when a player is found by name, then their page answers the questions: summary in plain words, and each tab lists that player's rows", async () => {
    const { user, betId } = await busyPlayer(env, superAdmin.id);
    await page.goto('/admin/#/users');
    await page.getByLabel('Search name, e-mail or id').first().fill(String(user.username));
    // The search applies after its debounce (into the URL): a click before it would be undone by it.
    await page.waitForURL((url) => decodeURIComponent(url.hash).includes(String(user.username)));
    await page
      .getByRole('row')
      .filter({ hasText: String(user.username) })
      .click();
    await page.getByRole('heading', { name: new RegExp(String(user.username)), level: 1 }).waitFor();

    const lifetime = page.getByRole('table', { name: 'Lifetime figures' });
    const figure = (label: string) => lifetime.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
    await figure('Settled bets').getByText('1', { exact: true }).waitFor();
    await figure('Deposited').waitFor();
    // Plain labels, the API's names only on hover; one table, not "USD stats" beside "Full stats".
    for (const raw of ['ltv', 'ggr', 'totalLoss'])
      expect(await lifetime.getByRole('rowheader', { name: raw, exact: true }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: /USD stats|Full stats/ }).count()).toBe(0);
    await page
      .getByRole('table', { name: 'Account' })
      .getByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/)
      .first()
      .waitFor();
    await accessible('player summary');
    await shoot('player-summary', true);

    const tab = async (name: string, expectRow: string, screenshot?: string) => {
      await page.getByRole('tab', { name, exact: true }).click();
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('row').filter({ hasText: expectRow }).first().waitFor();
      await accessible(`player tab ${name}`);
      if (screenshot) await shoot(screenshot);
    };
    await tab('Bets', betId, 'player-bets');
    await tab('Deposits', 'COMPLETE');
    await tab('Withdrawals', '1.5 BTC');
    await tab('Transactions', 'BET_PAYOUT');
    await tab('Tips', 'welcome');
    await tab('Audit', 'tip');
    await page.getByRole('tab', { name: 'Notes', exact: true }).click();
    await page
      .getByRole('tabpanel')
      .getByText(/No notes on this player/)
      .waitFor();
    await page.getByRole('tab', { name: 'Limits', exact: true }).click();
    await page.getByRole('tabpanel').getByRole('region', { name: 'Bet limit' }).waitFor();
    await accessible('player tab Limits');

    // A tab keeps the list screen's filters: the player's bets by another status than the default SETTLED leave theirs out.
    await page.getByRole('tab', { name: 'Bets', exact: true }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('row').filter({ hasText: betId }).waitFor();
    await panel.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'ROLLBACK', exact: true }).click();
    await panel.getByRole('row').filter({ hasText: betId }).waitFor({ state: 'detached' });
  });

  it('when a list is filtered by a username, then only that player shows, named and linked to their page, never as a bare id', async () => {
    const a = await busyPlayer(env, superAdmin.id);
    const b = await busyPlayer(env, superAdmin.id);
    await page.goto('/admin/#/bets');
    await page.getByLabel('User (name, e-mail or id)').fill(String(a.user.username));
    const rows = page.getByRole('row').filter({ hasText: a.betId });
    await rows.waitFor();
    await page.getByRole('row').filter({ hasText: b.betId }).waitFor({ state: 'detached' });
    await page.goto('/admin/#/transactions');
    await page.getByLabel('User (name, e-mail or id)').fill(a.user.email);
    // The whole log shows first; once the e-mail is resolved to the player, only their movements stay.
    await page
      .getByRole('link', { name: String(b.user.username), exact: true })
      .first()
      .waitFor({ state: 'detached' });
    const named = page.getByRole('link', { name: String(a.user.username), exact: true }).first();
    await named.waitFor();
    await accessible('transactions by user');
    await named.click();
    await page.getByRole('heading', { name: new RegExp(String(a.user.username)), level: 1 }).waitFor();
  });

  it('when the queue is read, then each row carries the player context, ids and addresses short with copy, and approve and reject act from there', async () => {
    const first = await pendingWithdrawal(env, '1.25');
    const second = await pendingWithdrawal(env, '0.5');
    const level = { type: 'SetKycLevel', data: { level: 'LEVEL_2', verificationPending: true } } as const;
    expect((await env.users.execute(second.user.id, level, superAdmin.id))._tag).toBe('Right');
    await page.goto('/admin/#/withdrawals');
    const row = (id: string) => page.getByRole('row').filter({ has: page.getByTitle(id, { exact: true }) });
    // No record reads as LEVEL_0 (as the AML hold reads it); a stored level shows as stored.
    await row(first.withdrawal.id)
      .getByText(/^KYC LEVEL_0 · today/)
      .waitFor();
    await row(second.withdrawal.id)
      .getByText(/^KYC LEVEL_2 \(pending\) · today/)
      .waitFor();
    await row(first.withdrawal.id).getByText('Balance', { exact: false }).waitFor();
    // Shortened to its ends, whole in the title, and copied whole.
    expect(await row(first.withdrawal.id).getByTitle(first.withdrawal.id, { exact: true }).innerText()).toMatch(/^.{6}….{4}$/);
    await row(first.withdrawal.id).getByRole('button', { name: 'Copy withdrawal id' }).click();
    const clipboard = () =>
      page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText(),
      );
    expect(await clipboard()).toBe(first.withdrawal.id);

    await row(first.withdrawal.id).getByRole('cell').first().click();
    const card = page.getByRole('table', { name: 'Player context' });
    await card.getByRole('rowheader', { name: 'Deposited to date' }).waitFor();
    await card.getByRole('rowheader', { name: 'Account age' }).waitFor();
    await accessible('withdrawal with player context');
    await shoot('withdrawal-context');
    await row(first.withdrawal.id).getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('dialog').textContent()).resolves.toContain('1.25 BTC');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Approve: done', { exact: true }).waitFor();
    await row(first.withdrawal.id).waitFor({ state: 'detached' });

    await row(second.withdrawal.id).getByRole('cell').first().click();
    await page.getByRole('table', { name: 'Player context' }).waitFor();
    // The expansion has its own Reject beside the context (the row's is the first).
    await page.getByRole('button', { name: 'Reject', exact: true }).last().click();
    await page.getByRole('dialog').getByLabel('Reject reason').fill('name does not match the KYC record');
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
    await page.getByText("Rejected: the funds are back in the user's wallet", { exact: true }).waitFor();
    await row(second.withdrawal.id).waitFor({ state: 'detached' });
    expect(await balanceOf(env, second.user.id)).toBe('10');
  });

  it('when an admin is created from the Finance template with one permission taken off and one added, then they hold exactly those, it is audited, and they sign in to their screens', async () => {
    const username = `fin${Date.now().toString(36)}`;
    const email = `${username}@example.test`;
    const password = 'ledger close quarterly 7 tulips';
    await page.goto('/admin/#/admins/new');
    await page.getByRole('heading', { name: 'New admin', level: 1 }).waitFor();
    await page.getByRole('radio', { name: /^Finance:/ }).check();
    const perms = page.getByRole('region', { name: 'Permissions' });
    await expect(perms.getByRole('checkbox', { name: 'withdrawals.approve', exact: true }).isChecked()).resolves.toBe(true);
    await perms.getByRole('checkbox', { name: 'dashboard.view', exact: true }).uncheck();
    await perms.getByRole('checkbox', { name: 'kyc.view', exact: true }).check();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('E-mail (optional)').fill(email);
    await page.getByLabel('Password').fill(password);
    // The button turns enabled with a colour transition: measure its contrast once it has its final colour (#1565c0).
    const settled = () =>
      [
        ...(
          globalThis as unknown as { document: { querySelectorAll: (s: string) => Iterable<{ textContent: string }> } }
        ).document.querySelectorAll('button'),
      ].some(
        (b) =>
          b.textContent === 'Create admin' &&
          (globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(b)
            .backgroundColor === 'rgb(21, 101, 192)',
      );
    await page.waitForFunction(settled, undefined, { timeout: 20_000 });
    await accessible('new admin');
    await shoot('new-admin', true);
    await page.getByRole('button', { name: 'Create admin' }).click();
    const dialog = await page.getByRole('dialog').textContent();
    expect(dialog).toContain('kyc.view');
    expect(dialog).not.toContain('dashboard.view');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Admin ${username} created.` })
      .waitFor();

    // The read models follow the events (the projector): read them once they caught up.
    const { rows } = await eventually(async () => {
      const found = await env.pool.query<{ id: string; permissions: string[] }>('SELECT id, permissions FROM users WHERE username = $1', [
        username,
      ]);
      expect(found.rows[0]?.permissions.length).toBe(10);
      return found;
    });
    expect([...rows[0]!.permissions].sort()).toEqual(
      ['admin-tips.view', 'balance.view', 'deposits.view', 'kyc.view', 'transaction.view', 'user.view']
        .concat(['withdrawals.approve', 'withdrawals.reject', 'withdrawals.retry', 'withdrawals.view'])
        .sort(),
    );
    await eventually(async () => {
      const audited = await env.pool.query<{ action: string }>(
        'SELECT action FROM admin_audit WHERE admin_user_id = $1 AND target_user_id = $2',
        [superAdmin.id, Number(rows[0]!.id)],
      );
      // The creation, and each of the 10 grants on its own.
      expect(audited.rows.map((r) => r.action).sort()).toEqual(['user.create', ...Array<string>(10).fill('permission.add')].sort());
    });

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: env.adminUrl });
    contexts.push(context);
    const theirs = await context.newPage();
    await theirs.goto('/admin/');
    await theirs.getByLabel('E-mail').fill(email);
    await theirs.getByLabel('Password').fill(password);
    await theirs.getByRole('button', { name: 'Sign in' }).click();
    await theirs.getByRole('menuitem', { name: 'Withdrawals' }).click();
    await theirs.getByRole('heading', { name: 'Withdrawals' }).first().waitFor();
    expect(await theirs.getByRole('menuitem', { name: 'New admin' }).count()).toBe(0);
  });

  it('when a moderator reads a room, then its recent messages are listed to act on: one deleted, its sender muted, from the list', async () => {
    const chat = createChat({ pool: env.pool, publish: async () => undefined });
    const [polite, spammer] = [await env.makeUser(), await env.makeUser()];
    for (const [userId, text] of [
      [polite.id, 'good luck everyone'],
      [spammer.id, 'free coins at example.invalid'],
    ] as const) {
      const sent = await chat.send({ roomId: 'en', userId, text });
      if (sent._tag === 'Left') throw new Error(sent.left._tag);
    }
    await page.goto('/admin/#/chat');
    await page.getByRole('combobox', { name: 'Room' }).first().click();
    await page.getByRole('option', { name: 'en', exact: true }).click();
    const messages = page.getByRole('table', { name: 'Recent messages in en' });
    const spam = messages.getByRole('row').filter({ hasText: 'free coins at example.invalid' });
    await spam.waitFor();
    await accessible('chat moderation');
    await shoot('chat-recent');
    await spam.getByRole('button', { name: 'Mute' }).click();
    await expect(page.getByRole('dialog').textContent()).resolves.toContain(String(spammer.username));
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Mute: done', { exact: true }).waitFor();
    await spam.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Delete: done', { exact: true }).waitFor();
    await spam.waitFor({ state: 'detached' });
    await messages.getByRole('row').filter({ hasText: 'good luck everyone' }).waitFor();
    const { rows } = await env.pool.query<{ deleted: boolean }>(
      'SELECT deleted_at IS NOT NULL AS deleted FROM chat_messages WHERE user_id = $1',
      [spammer.id],
    );
    expect(rows).toEqual([{ deleted: true }]);
    expect(((await env.users.load(spammer.id)) as { profile?: { canUseChat?: boolean } }).profile?.canUseChat).toBe(false);
  });

  it('when a stored section is opened, then the form shows its values; a bad value is named, not sent; a good one is saved', async () => {
    await putSiteConfig(
      { pool: env.pool, store: env.store },
      {
        code: 'WITHDRAWALS',
        config: { enabled: false, dailyLimitUsd: '1000' },
        request: {},
        adminUserId: superAdmin.id,
        at: new Date().toISOString(),
      },
    );
    await page.goto('/admin/#/config');
    await page.getByRole('heading', { name: 'Site configuration', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Section' }).click();
    await page.getByRole('option', { name: 'WITHDRAWALS', exact: true }).click();
    const section = page.getByRole('region', { name: 'WITHDRAWALS section' });
    await page.getByText(/^WITHDRAWALS as stored: revision \d+, saved /).waitFor();
    expect(await section.getByLabel('Daily limit per player (USD)').inputValue()).toBe('1000');
    await section.getByRole('combobox', { name: 'Withdrawals on' }).filter({ hasText: 'Off' }).waitFor();
    expect(await section.getByLabel('Manual approval above (USD)').inputValue()).toBe('');
    await section.getByRole('combobox', { name: 'Withdrawals on' }).click();
    await page.getByRole('option', { name: 'On', exact: true }).click();
    await section.getByLabel('Manual approval above (USD)').fill('five hundred');
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/config')) sent.push(r.postData() ?? '');
    });
    await page.getByRole('button', { name: 'Save section' }).click();
    await section.getByText('must be a non-negative decimal string').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await section.getByLabel('Manual approval above (USD)').fill('500');
    await section.getByLabel('Daily limit per player (USD)').fill('25000.50');
    await accessible('site configuration form');
    await shoot('config-form');
    await page.getByRole('button', { name: 'Save section' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved WITHDRAWALS: revision \d+$/ })
      .waitFor();
    expect(sent.map((b) => JSON.parse(b) as unknown)).toEqual([
      { code: {}, config: { enabled: true, manualApprovalAboveUsd: '500', dailyLimitUsd: '25000.50' } },
    ]);
  });
});
