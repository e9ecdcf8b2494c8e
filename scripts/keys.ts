/**
 * node dist/scripts/keys.js   (npm run keys in a checkout)
 *
 * Makes the keys every process of a deployment shares, once, under DATA_DIR/keys: the JWT signing pair, the MFA
 * sealing key and the ledger seal key. A key that exists is kept (never overwritten), so running it again is safe;
 * the compose stack runs it as a one-shot service that fills the key volume every other service mounts read-only.
 * Prints which files exist, never a key.
 */
import { loadKeys } from '../src/auth/sessions.js';
import { loadSymmetricKey } from '../src/infra/secrets.js';
import { SEAL_KEY_NAME } from '../src/audit/cli/ledger-cli.js';
import { jwtKeyFile, keyFile, MFA_KEY_NAME } from '../src/infra/required-secrets.js';

const dataDir = process.env.DATA_DIR || './.data';
try {
  await loadKeys({ dataDir });
  await loadSymmetricKey(undefined, dataDir, MFA_KEY_NAME);
  await loadSymmetricKey(undefined, dataDir, SEAL_KEY_NAME);
  for (const file of [jwtKeyFile(dataDir), keyFile(dataDir, MFA_KEY_NAME), keyFile(dataDir, SEAL_KEY_NAME)])
    process.stdout.write(`key ready: ${file}\n`);
} catch (error) {
  process.stderr.write(`keys: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
