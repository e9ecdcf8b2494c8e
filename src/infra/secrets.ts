import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keyFile } from './required-secrets.js';

/** Outside local and development a missing key is an error: a key generated here would be unknown to other processes. */
export class MissingKeyError extends Error {
  override readonly name = 'MissingKeyError';
}

/** A 32-byte key: given value, else `dataDir/keys/<name>.key`, else generated once there (unless `generate: false`). */
export const loadSymmetricKey = async (
  given: string | undefined,
  dataDir: string,
  name: string,
  options: Readonly<{ generate?: boolean }> = {},
): Promise<Buffer> => {
  if (given) {
    const key = /^[0-9a-f]{64}$/i.test(given) ? Buffer.from(given, 'hex') : Buffer.from(given, 'base64');
    if (key.length !== 32) throw new Error(`${name}: must be 32 bytes in hex or base64`);
    return key;
  }
  const dir = join(dataDir, 'keys');
  const file = keyFile(dataDir, name);
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (options.generate === false) throw new MissingKeyError(`no ${name} key given and ${file} does not exist`);
  const key = randomBytes(32);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process generated it first: everyone uses that one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  }
  return key;
};
