import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { changeSiteConfig, configStream, type SiteConfigChanged } from '../domain/site-config/site-config.events.js';
import type { ConfigCode } from '../domain/site-config/site-config.sections.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';

export type StoredConfig = Readonly<{
  code: ConfigCode;
  config: Record<string, unknown>;
  revision: number;
  updatedByUserId: number;
  updatedAt: string;
}>;
/** A section no one has saved yet: nothing stored, so the defaults of the code that reads it apply. */
export type UnsetConfig = Readonly<{
  code: ConfigCode;
  config: Record<string, never>;
  revision: null;
  updatedByUserId: null;
  updatedAt: null;
}>;

/** The stored section as the last PUT answered it, or the section marked as never saved. */
export const getSiteConfig = async (pool: pg.Pool, code: ConfigCode): Promise<StoredConfig | UnsetConfig> => {
  const { rows } = await pool.query<{ config: Record<string, unknown>; revision: string; updated_by: string; updated_at: Date }>(
    'SELECT config, revision, updated_by, updated_at FROM site_config WHERE code = $1',
    [code],
  );
  const row = rows[0];
  if (!row) return { code, config: {}, revision: null, updatedByUserId: null, updatedAt: null };
  return {
    code,
    config: row.config,
    revision: Number(row.revision),
    updatedByUserId: Number(row.updated_by),
    updatedAt: row.updated_at.toISOString(),
  };
};

/** Guarded by the stream revision, so a late or repeated apply never overwrites a newer section. */
export const putSiteConfig = async (
  deps: { pool: pg.Pool; store: EventStore; invalidateRates?: () => void },
  command: SiteConfigChanged['data'],
): Promise<StoredConfig> => {
  const event = changeSiteConfig(command);
  const appended = await deps.store.append({
    streamId: configStream(command.code),
    expectedRevision: 'any',
    events: [{ id: randomUUID(), type: event.type, data: event.data, metadata: { adminUserId: command.adminUserId } }],
  });
  const revision = appended.nextExpectedRevision;
  await inTransaction(deps.pool, async (c) => {
    const { rowCount } = await c.query(
      `INSERT INTO site_config (code, config, revision, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (code) DO UPDATE SET config = EXCLUDED.config, revision = EXCLUDED.revision, updated_by = EXCLUDED.updated_by,
         updated_at = EXCLUDED.updated_at
       WHERE site_config.revision < EXCLUDED.revision`,
      [command.code, JSON.stringify(command.config), revision.toString(), command.adminUserId, command.at],
    );
    const rates = command.code === 'COMMON' ? (command.config.rates as Record<string, string> | undefined) : undefined;
    if (rowCount === 1 && rates && Object.keys(rates).length > 0) {
      await c.query(
        `INSERT INTO currency_rates (currency_id, usd_rate, updated_at) SELECT key, value::numeric, $2 FROM jsonb_each_text($1::jsonb)
         ON CONFLICT (currency_id) DO UPDATE SET usd_rate = EXCLUDED.usd_rate, updated_at = EXCLUDED.updated_at`,
        [JSON.stringify(rates), command.at],
      );
    }
  });
  deps.invalidateRates?.();
  return {
    code: command.code,
    config: { ...command.config },
    revision: Number(revision),
    updatedByUserId: command.adminUserId,
    updatedAt: command.at,
  };
};
