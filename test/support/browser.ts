import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH overrides. Never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumFound = existsSync(CHROMIUM_PATH);

/** One headless Chromium; Playwright gives every launch a fresh temporary profile (user-data-dir). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[]; html?: string }[] };

/** axe-core run inside the page; the serious and critical violations (WCAG 2 A/AA rules and best practices). */
export const seriousViolations = async (page: Page): Promise<AxeViolation[]> => {
  // A dialog or button mid-transition (MUI fades them in) has its colours half-way: contrast is measured once every
  // running animation and transition has finished, not on a frame of one.
  await page.evaluate(async () => {
    const doc = (globalThis as unknown as { document: { getAnimations: () => { finished: Promise<unknown> }[] } }).document;
    await Promise.all(doc.getAnimations().map((a) => a.finished.catch(() => undefined)));
  });
  // Evaluated by the test driver, as a browser extension would run it: an inline <script> would (rightly) be refused by the
  // console's Content-Security-Policy.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // Runs in the page (the test's tsconfig has no DOM types): the whole document, violations only.
    const page = globalThis as unknown as {
      document: unknown;
      axe: { run: (ctx: unknown, opts: object) => Promise<{ violations: AxeViolation[] }> };
    };
    return (await page.axe.run(page.document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html?.slice(0, 160) })),
    }));
};

/**
 * Fails the test naming `screen` when the page has a serious or critical axe violation. A notification left by the
 * previous action is measured mid-fade (its text blends with the page), so the screen is checked once it is gone.
 * A function, not a string, is evaluated: the console's CSP refuses eval, which a string expression would need.
 */
export const expectAccessible = async (page: Page, screen: string): Promise<void> => {
  const noNotice = () =>
    !(globalThis as unknown as { document: { querySelector: (s: string) => unknown } }).document.querySelector('.MuiSnackbar-root');
  await page.waitForFunction(noNotice, undefined, { timeout: 20_000 });
  expect({ screen, violations: await seriousViolations(page) }).toEqual({ screen, violations: [] });
};

/** Signs in on the console's own page with e-mail and password (the local captcha bypass answers the captcha). */
export const signInConsole = async (page: Page, user: Readonly<{ email: string; password: string }>): Promise<void> => {
  await page.goto('/admin/');
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
};
