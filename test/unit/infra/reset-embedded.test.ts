import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resetEmbeddedData } from '../../../src/infra/embedded-postgres.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const temp = async (): Promise<string> => {
  const d = await mkdtemp(path.join(tmpdir(), 'reset-'));
  dirs.push(d);
  return d;
};

describe('npm run reset: the embedded database starts over', () => {
  it("when a root run kept its cluster outside DATA_DIR, then both the data directory's cluster and that one go, and the keys stay", async () => {
    const dataDir = await temp();
    const rootHome = await temp();
    const home = path.join(rootHome, createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16));
    await mkdir(path.join(home, 'pg'), { recursive: true });
    await writeFile(path.join(home, 'pg', 'PG_VERSION'), '17\n');
    await writeFile(path.join(dataDir, 'pg-location'), `${path.join(home, 'pg')}\n`);
    await mkdir(path.join(dataDir, 'keys'), { recursive: true });
    await writeFile(path.join(dataDir, 'keys', 'ledger-seal.key'), 'kept');

    expect(await resetEmbeddedData(dataDir, rootHome)).toEqual([home]);
    expect(existsSync(home)).toBe(false);
    expect(existsSync(path.join(dataDir, 'pg-location'))).toBe(false);
    expect(await readFile(path.join(dataDir, 'keys', 'ledger-seal.key'), 'utf8')).toBe('kept');
    expect(await resetEmbeddedData(dataDir, rootHome)).toEqual([]);
  });

  it('when the service runs on the data directory, then the reset is refused and nothing is removed', async () => {
    const dataDir = await temp();
    await mkdir(path.join(dataDir, 'pg'), { recursive: true });
    await writeFile(path.join(dataDir, 'embedded.pid'), String(process.ppid));
    await expect(resetEmbeddedData(dataDir, await temp())).rejects.toThrow(/is running with DATA_DIR .* stop it first/);
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(true);
  });
});
