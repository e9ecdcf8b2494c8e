import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Migration } from '../../src/infra/migrate.js';
import { allMigrations, nonCoreMigrations } from '../../src/schema.js';
import { filesUnder } from '../support/source-files.js';

const srcDir = join(import.meta.dirname, '../../src');

const isMigration = (v: unknown): v is Migration =>
  typeof v === 'object' && v !== null && typeof (v as Migration).id === 'string' && typeof (v as Migration).sql === 'string';

describe('the schema: one list of migrations', () => {
  it('when the list is read, then every id is unique and the list is in application (id) order', () => {
    const ids = allMigrations.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });

  it('when a migration is exported anywhere in src, then it is in the list', async () => {
    const listed = new Set(allMigrations);
    const missing: string[] = [];
    for (const file of filesUnder(srcDir, /\.migrations?\.ts$/)) {
      const exported = Object.values((await import(pathToFileURL(file).href)) as Record<string, unknown>);
      for (const m of exported.flatMap((v) => (Array.isArray(v) ? v : [v])).filter(isMigration)) {
        if (!listed.has(m)) missing.push(`${relative(srcDir, file)}: ${m.id}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('when a ledger-only schema is migrated, then it gets the read side without the identity tables', () => {
    const ids = nonCoreMigrations.map((m) => m.id);
    expect(ids).toContain('0100_projection_checkpoints');
    expect(ids).toContain('0431_affiliate_claims');
    expect(ids.filter((id) => /^0(001|05\d|06\d|200)_/.test(id))).toEqual([]);
  });
});
