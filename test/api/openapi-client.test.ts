import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { createAuthEnv, GOOD_CAPTCHA, PASSWORD, signIn, type AuthEnv } from '../support/auth-env.js';

/**
 * A TypeScript client generated from each OpenAPI document (openapi-typescript, into test/fixtures/openapi-client/generated)
 * type-checks the client program there (tsc), which then runs against the apps: a bet placed, lists read, a 409 and a 422
 * told apart by their codes.
 */
const DIR = new URL('../fixtures/openapi-client/', import.meta.url).pathname;
const TOKEN = 'client-service-token';

let env: AuthEnv;
let server: Server;
let adminUrl: string;
// Loaded by path once tsc has checked it: the project's own type-check leaves the program (and its generated types) out.
let program: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const generate = async (name: string, url: string): Promise<void> => {
  const document = (await (await fetch(url)).json()) as Record<string, unknown>;
  await writeFile(`${DIR}generated/${name}.ts`, astToString(await openapiTS(document as never)));
};

beforeAll(async () => {
  env = await createAuthEnv('openapi_client');
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    auth: env.kit,
    internalApiToken: TOKEN,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await mkdir(`${DIR}generated`, { recursive: true });
  await generate('back-office', `${adminUrl}/docs/openapi.json`);
  await generate('internal', `${adminUrl}/internal/openapi.json`);
  await generate('public', `${env.publicUrl}/docs/openapi.json`);
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await env?.close();
});

describe('a client generated from the OpenAPI documents', () => {
  it('when the client program is type-checked against the generated types, then tsc reports no error', async () => {
    const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', `${DIR}tsconfig.json`]).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? 'tsc failed', stderr: error.stderr ?? '' }),
    );
    expect(`${result.stdout}${result.stderr}`).toBe('');
    const path = `${DIR}program.ts`;
    program = await import(/* @vite-ignore */ path);
  }, 120_000);

  it('when the program places bets, then it tells a placed bet, a 409 and a 422 apart by their codes and reads the lists', async () => {
    expect(program, 'the type-check test ran first').toBeDefined();
    const user = await env.makeUser({ username: 'clientbettor' });
    const deposit = await env.ledger.requestDeposit({
      externalId: 'client-dep-1',
      userId: user.id,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '10',
    });
    if (deposit._tag !== 'Right') throw new Error('deposit refused');
    await env.ledger.completeDeposit(deposit.right.deposit.id, {});

    expect(await program.placeBet(adminUrl, TOKEN, { id: 'client-bet-1', userId: user.id, amount: '4' })).toMatchObject({
      outcome: 'placed',
      status: 'CREATED',
      amount: '4',
    });
    expect((await program.placeBet(adminUrl, TOKEN, { id: 'client-bet-1', userId: user.id, amount: '4' })).outcome).toBe('repeat');
    expect((await program.placeBet(adminUrl, TOKEN, { id: 'client-bet-1', userId: user.id, amount: '5' })).outcome).toBe('key-reused');
    expect((await program.placeBet(adminUrl, TOKEN, { id: 'client-bet-2', userId: user.id, amount: '7' })).outcome).toBe(
      'insufficient-funds',
    );
    expect(await program.balances(adminUrl, TOKEN, user.id)).toEqual([{ currencyId: 'USDT', balance: '6' }]);

    const admin = await env.makeUser({ roles: ['Admin'] });
    const session = await signIn(env, admin);
    expect(await program.faqTitles(adminUrl, session.accessToken)).toEqual([]);
    expect(await program.signIn(env.publicUrl, user.email, 'not the password', GOOD_CAPTCHA)).toEqual({ refused: 'bad-credentials' });
    expect(await program.signIn(env.publicUrl, user.email, PASSWORD, GOOD_CAPTCHA)).toEqual({ userId: user.id });
  });
});
