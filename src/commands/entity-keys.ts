import type pg from 'pg';
import { createBatcher } from './batcher.js';

export type EntityKind = 'bet' | 'deposit' | 'deposit-ext' | 'withdrawal' | 'affiliate-claim';

export type EntityKeys = Readonly<{
  /** Claims `key` for `userId` if nobody has; returns the owner (which may be another user) and whether this claim made it. */
  claim: (kind: EntityKind, key: string, userId: number) => Promise<Readonly<{ owner: number; made: boolean }>>;
  ownerOf: (kind: EntityKind, key: string) => Promise<number | undefined>;
  /** Caches an owner learnt elsewhere (a claim committed with its append). */
  remember: (kind: EntityKind, key: string, userId: number) => void;
}>;

type Claim = Readonly<{ kind: EntityKind; key: string; userId: number }>;

/** Give it a synchronous_commit-off pool: the synchronous append that follows a claim makes it durable. */
export const createEntityKeys = (deps: { pool: pg.Pool; cacheSize?: number }): EntityKeys => {
  const cacheSize = deps.cacheSize ?? 200_000;
  const cache = new Map<string, number>();
  const remember = (k: string, owner: number): void => {
    cache.set(k, owner);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
  };
  const claims = createBatcher<Claim, { owner: number; made: boolean }>(
    async (items) => {
      const { rows } = await deps.pool.query<{ owner: string | null; made: boolean }>(
        `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS t(kind, key, user_id, ord)
       ), ins AS (
         INSERT INTO ledger_keys (kind, key, user_id)
         SELECT DISTINCT ON (kind, key) kind, key, user_id FROM input ORDER BY kind, key, ord
         ON CONFLICT DO NOTHING
         RETURNING kind, key, user_id
       )
       SELECT COALESCE(k.user_id, ins.user_id) AS owner, ins.user_id IS NOT NULL AS made
       FROM input i
       LEFT JOIN ins ON ins.kind = i.kind AND ins.key = i.key
       LEFT JOIN ledger_keys k ON k.kind = i.kind AND k.key = i.key
       ORDER BY i.ord`,
        [items.map((c) => c.kind), items.map((c) => c.key), items.map((c) => c.userId)],
      );
      const owners = rows.map((r) => (r.owner === null ? undefined : Number(r.owner)));
      // Committed by a concurrent batch after this snapshot: ON CONFLICT waited for it but the join cannot see it.
      const unseen = items.filter((_, i) => owners[i] === undefined);
      if (unseen.length > 0) {
        const { rows: later } = await deps.pool.query<{ kind: string; key: string; user_id: string }>(
          'SELECT kind, key, user_id FROM ledger_keys WHERE (kind, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
          [unseen.map((c) => c.kind), unseen.map((c) => c.key)],
        );
        const found = new Map(later.map((r) => [`${r.kind}:${r.key}`, Number(r.user_id)]));
        items.forEach((c, i) => {
          owners[i] ??= found.get(`${c.kind}:${c.key}`);
        });
      }
      return owners.map((o, i) => {
        if (o === undefined) throw new Error(`ledger_keys: no owner for ${items[i]!.kind}:${items[i]!.key}`);
        return { owner: o, made: rows[i]?.made === true };
      });
    },
    { maxBatch: 500, concurrency: 2 },
  );

  return {
    remember: (kind, key, userId) => remember(`${kind}:${key}`, userId),
    claim: async (kind, key, userId) => {
      const k = `${kind}:${key}`;
      const known = cache.get(k);
      if (known !== undefined) return { owner: known, made: false };
      const claimed = await claims.submit({ kind, key, userId });
      remember(k, claimed.owner);
      return claimed;
    },
    ownerOf: async (kind, key) => {
      const k = `${kind}:${key}`;
      const known = cache.get(k);
      if (known !== undefined) return known;
      const { rows } = await deps.pool.query<{ user_id: string }>('SELECT user_id FROM ledger_keys WHERE kind = $1 AND key = $2', [
        kind,
        key,
      ]);
      if (rows[0] === undefined) return undefined;
      const owner = Number(rows[0].user_id);
      remember(k, owner);
      return owner;
    },
  };
};
