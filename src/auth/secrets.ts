import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A 32-byte key: from the given hex / base64 value, else generated once and kept under `dataDir/keys`. */
export const loadSymmetricKey = async (given: string | undefined, dataDir: string, name: string): Promise<Buffer> => {
  if (given) {
    const key = /^[0-9a-f]{64}$/i.test(given) ? Buffer.from(given, 'hex') : Buffer.from(given, 'base64');
    if (key.length !== 32) throw new Error(`${name}: must be 32 bytes in hex or base64`);
    return key;
  }
  const dir = join(dataDir, 'keys');
  const file = join(dir, `${name}.key`);
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
};
