import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/infra/config.js';
import { missingSecrets } from '../../../src/infra/required-secrets.js';

const pems = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};
const NO_KEYS_DIR = '/nonexistent/ledger-data';

describe('missingSecrets', () => {
  it('when APP_ENV is local or development, then nothing is required (keys are generated under DATA_DIR)', async () => {
    for (const APP_ENV of ['local', 'development'])
      expect(await missingSecrets(loadConfig({ APP_ENV, DATA_DIR: NO_KEYS_DIR }), 'ledger-seal')).toBe('');
  });

  it('when APP_ENV=production and keys are neither set nor on disk, then one line names each missing secret', async () => {
    const line = await missingSecrets(loadConfig({ APP_ENV: 'production', DATA_DIR: NO_KEYS_DIR }), 'ledger-seal');
    expect(line.split('\n')).toHaveLength(1);
    for (const name of ['JWT_PRIVATE_KEY', 'MFA_ENCRYPTION_KEY', 'LEDGER_SEAL_KEY', 'CAPTCHA_SECRET']) expect(line).toContain(name);
  });

  it('when APP_ENV=staging and every secret is in the environment, then nothing is missing; a projector needs no captcha secret', async () => {
    const keys = { ...pems(), MFA_ENCRYPTION_KEY: randomBytes(32).toString('hex'), LEDGER_SEAL_KEY: randomBytes(32).toString('hex') };
    expect(
      await missingSecrets(loadConfig({ APP_ENV: 'staging', DATA_DIR: NO_KEYS_DIR, CAPTCHA_SECRET: 's', ...keys }), 'ledger-seal'),
    ).toBe('');
    expect(
      await missingSecrets(loadConfig({ APP_ENV: 'production', DATA_DIR: NO_KEYS_DIR, ROLES: 'projector', ...keys }), 'ledger-seal'),
    ).toBe('');
  });
});
