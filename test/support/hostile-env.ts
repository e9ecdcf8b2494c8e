import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { call, createAuthEnv, signIn, type AuthEnv, type CallOptions, type Reply } from './auth-env.js';

export const INTERNAL_TOKEN = 'hostile-internal-token-0123456789';

export type HostileEnv = AuthEnv &
  Readonly<{
    /** A back office on the same database with the internal ledger API on (`/internal`). */
    internalUrl: string;
    superadmin: Readonly<{ id: number; token: string }>;
    /** A new SuperAdmin for `asAdmin` (when fuzzing banned or demoted the current one); answers its id. */
    renewAdmin: () => Promise<number>;
    /** Calls a base URL as the SuperAdmin and with the internal service token. */
    asAdmin: (base: string, method: string, path: string, options?: CallOptions & { rawBody?: string }) => Promise<Reply>;
    /** Event store head and the row count of every table: equal before and after means nothing was written. */
    footprint: () => Promise<Record<string, number>>;
    closeHostile: () => Promise<void>;
  }>;

export const createHostileEnv = async (label: string): Promise<HostileEnv> => {
  const env = await createAuthEnv(label);
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    internalApiToken: INTERNAL_TOKEN,
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  const internalUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const user = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  let token = (await signIn(env, user)).accessToken;
  const renewAdmin = async () => {
    const next = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    token = (await signIn(env, next)).accessToken;
    return next.id;
  };
  const asAdmin = async (base: string, method: string, path: string, options: CallOptions & { rawBody?: string } = {}): Promise<Reply> => {
    const headers = { authorization: `Bearer ${token}`, 'x-service-token': INTERNAL_TOKEN, ...options.headers };
    if (options.rawBody === undefined) return call(base, method, path, { ...options, headers });
    // Exactly these bytes (malformed JSON included); `call` would serialise a value.
    const res = await fetch(`${base}${path}`, {
      method,
      redirect: 'manual',
      headers: { 'content-type': 'application/json', ...headers },
      body: options.rawBody,
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, headers: res.headers, cookies: {} };
  };
  const { rows: tables } = await env.pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const countSql = [
    `SELECT 'events.head' AS name, coalesce(max(global_position), 0)::bigint AS n FROM events`,
    ...tables.map((t) => `SELECT '${t.name}', count(*) FROM "${t.name}"`),
  ].join(' UNION ALL ');
  const footprint = async () =>
    Object.fromEntries((await env.pool.query<{ name: string; n: string }>(countSql)).rows.map((r) => [r.name, Number(r.n)]));
  return {
    ...env,
    internalUrl,
    superadmin: { id: user.id, token },
    renewAdmin,
    asAdmin,
    footprint,
    closeHostile: async () => {
      await new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      });
      await env.close();
    },
  };
};
