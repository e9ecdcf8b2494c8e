import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';

/** Only these environments may generate keys: there one process (or one machine's DATA_DIR) is the whole deployment. */
export const mayGenerateKeys = (config: Pick<Config, 'appEnv'>): boolean => config.appEnv === 'local' || config.appEnv === 'development';

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

/** Key file names under DATA_DIR/keys, shared with the `keys` tool that fills a deployment's key volume. */
export const MFA_KEY_NAME = 'mfa-secrets';

export const keyFile = (dataDir: string, name: string): string => join(dataDir, 'keys', `${name}.key`);

export const jwtKeyFile = (dataDir: string): string => join(dataDir, 'keys', 'jwt-ed25519.jwk.json');

/** Staging and production generate no keys (every process must share them): returns the missing ones as one line. */
export const missingSecrets = async (config: Config, sealKeyName: string): Promise<string> => {
  if (mayGenerateKeys(config)) return '';
  const { dataDir } = config;
  const missing: string[] = [];
  if (!(config.auth.jwtPrivateKey && config.auth.jwtPublicKey) && !(await exists(jwtKeyFile(dataDir)))) {
    missing.push(`JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (or ${jwtKeyFile(dataDir)})`);
  }
  if (!config.auth.mfaEncryptionKey && !(await exists(keyFile(dataDir, MFA_KEY_NAME)))) {
    missing.push(`MFA_ENCRYPTION_KEY (or ${keyFile(dataDir, MFA_KEY_NAME)})`);
  }
  if (!config.audit.sealKey && !(await exists(keyFile(dataDir, sealKeyName)))) {
    missing.push(`LEDGER_SEAL_KEY (or ${keyFile(dataDir, sealKeyName)})`);
  }
  if (config.roles.has('public-api') && !config.auth.captchaSecret) missing.push('CAPTCHA_SECRET');
  if (missing.length === 0) return '';
  return (
    `Missing secrets for APP_ENV=${config.appEnv}: ${missing.join(', ')}. Set them, or fill DATA_DIR/keys once with ` +
    '`node dist/scripts/keys.js` on a volume every process mounts; outside local and development no key is generated.'
  );
};
