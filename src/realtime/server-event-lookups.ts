import type pg from 'pg';
import type { Rates } from '../commands/rates.js';
import type { CurrencyId } from '../domain/money/currency.js';
import { usdFromMinor, usdToMinor, type DecimalString, type Minor } from '../domain/money/money.js';
import { PROFILE_DEFAULTS, vipLevelOf } from '../domain/user/vip.js';
import { userStream } from '../domain/user/user.events.js';
import { walletStream, walletStreamUserId } from '../domain/wallet/wallet.events.js';
import {
  comparePositions,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { userStatsUsdProjection } from '../read-models/user-stats-usd/user-stats-usd.projection.js';
import type { PublicShortUser } from './feeds.js';
import { placementOf, type BetPlacement, type EventLookups } from './server-events.js';

/** Shared by the live publisher and the replay so that both compute the same events. */
export type LookupDeps = Readonly<{ store: EventStore; pool: pg.Pool; rates: Rates }>;

export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  get size(): number {
    return this.map.size;
  }
}

export async function* scanBackward(
  store: EventStore,
  streamId: string,
  fromRevision?: bigint,
  pageSize = 256,
): AsyncGenerator<RecordedEvent> {
  let from = fromRevision;
  for (;;) {
    if (from !== undefined && from < 0n) return;
    const page = await store.readStreamBackward(streamId, { ...(from === undefined ? {} : { fromRevision: from }), maxCount: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    from = page.at(-1)!.revision - 1n;
  }
}

/** Bets settle soon after they are placed, so the search stops here. */
export const PLACEMENT_SCAN_LIMIT = 50_000;

export const findPlacement = async (
  store: EventStore,
  userId: number,
  betId: string,
  beforeRevision?: bigint,
): Promise<BetPlacement | undefined> => {
  let seen = 0;
  for await (const e of scanBackward(store, walletStream(userId), beforeRevision === undefined ? undefined : beforeRevision - 1n)) {
    if (e.type === 'BetPlaced' && (e.data as { betId?: unknown }).betId === betId) return placementOf(e);
    if (++seen >= PLACEMENT_SCAN_LIMIT) return undefined;
  }
  return undefined;
};

const stakeOf = (e: RecordedEvent): Minor => usdToMinor((e.data as { usdAmount: DecimalString }).usdAmount);

/** USD staked on the user's SETTLED bets strictly before `position`, exactly. */
export const wageredBefore = async (deps: Pick<LookupDeps, 'store' | 'pool'>, userId: number, position: Position): Promise<Minor> => {
  const { rows } = await deps.pool.query<{ total: string | null; checkpoint: string | null }>(
    `SELECT (SELECT trim_scale(total_wagered)::text FROM user_stats_usd WHERE user_id = $1) AS total,
            (SELECT position FROM projection_checkpoints WHERE name = $2 AND version = $3) AS checkpoint`,
    [userId, userStatsUsdProjection.name, userStatsUsdProjection.version],
  );
  const checkpoint = rows[0]?.checkpoint ? parsePosition(rows[0].checkpoint) : START;
  // Without a checkpoint (no projector yet, or a rebuild pending) the table says nothing: count from zero.
  let total = rows[0]?.checkpoint && rows[0].total ? usdToMinor(rows[0].total as DecimalString) : 0n;
  for await (const e of scanBackward(deps.store, walletStream(userId))) {
    const beforeCheckpoint = comparePositions(e.position, checkpoint) <= 0;
    const beforePosition = comparePositions(e.position, position) < 0;
    if (beforeCheckpoint && beforePosition) break;
    if (e.type !== 'BetSettled') continue;
    if (!beforeCheckpoint && beforePosition) total += stakeOf(e);
    else if (beforeCheckpoint && !beforePosition) total -= stakeOf(e);
  }
  return total;
};

export type LookupCaches = Readonly<{
  placements: BoundedMap<string, BetPlacement>;
  /** USD staked on SETTLED bets up to and including `at`. */
  wagered: BoundedMap<number, { at: Position; total: Minor }>;
}>;

export const newLookupCaches = (max = 100_000): LookupCaches => ({ placements: new BoundedMap(max), wagered: new BoundedMap(max) });

/** From the user stream, never a lagging read model: the publisher and a later replay name the same admin. */
export const usernameAt = async (store: EventStore, userId: number, position: Position): Promise<string | null> => {
  for await (const e of scanBackward(store, userStream(userId), undefined, 32)) {
    if (comparePositions(e.position, position) > 0) continue;
    if (e.type === 'UsernameSet' || e.type === 'UserRegistered') return (e.data as { username?: string | null }).username ?? null;
  }
  return null;
};

export const prepareLookups = async (deps: LookupDeps, events: readonly RecordedEvent[], caches: LookupCaches): Promise<EventLookups> => {
  const currencies = new Set<CurrencyId>();
  const tippers = new Map<string, string | null>(); // the tipping admin's username, by tip event id
  const wagered = new Map<string, DecimalString>();
  for (const e of events) {
    const userId = walletStreamUserId(e.streamId);
    if (userId === undefined) continue;
    const d = e.data as { currencyId?: CurrencyId; adminUserId?: number; betId?: string; usdAmount?: DecimalString };
    if (d.currencyId) currencies.add(d.currencyId);
    if (e.type === 'AdminTipCredited' && typeof d.adminUserId === 'number')
      tippers.set(e.id, await usernameAt(deps.store, d.adminUserId, e.position));
    if (e.type === 'BetPlaced') {
      const p = placementOf(e);
      if (p) caches.placements.set(p.betId, p);
    } else if (
      (e.type === 'BetSettled' || e.type === 'BetRolledBack' || e.type === 'BetErrored') &&
      d.betId &&
      !caches.placements.get(d.betId)
    ) {
      const p = await findPlacement(deps.store, userId, d.betId, e.revision);
      if (p) caches.placements.set(p.betId, p);
    }
    if (e.type === 'BetSettled' && d.usdAmount) {
      const known = caches.wagered.get(userId);
      // The cache holds the total up to an earlier followed event: nothing in between is missing.
      const before = known && comparePositions(known.at, e.position) < 0 ? known.total : await wageredBefore(deps, userId, e.position);
      wagered.set(e.id, usdFromMinor(before));
      caches.wagered.set(userId, { at: e.position, total: before + usdToMinor(d.usdAmount) });
    }
  }
  const rates = new Map<string, DecimalString>();
  for (const c of currencies) rates.set(c, await deps.rates.usdRate(c));
  return {
    usdRate: (c) => rates.get(c) ?? ('0' as DecimalString),
    tipperUsername: (eventId) => tippers.get(eventId) ?? null,
    placement: (betId) => caches.placements.get(betId),
    wageredBefore: (eventId) => wagered.get(eventId),
  };
};

/** VIP level from user-stats-usd. Unknown ids are absent. */
export const publicUsersOf = async (pool: pg.Pool, ids: readonly number[]): Promise<Map<number, PublicShortUser>> => {
  if (ids.length === 0) return new Map();
  const { rows } = await pool.query<{
    id: string;
    username: string | null;
    is_banned: boolean;
    profile: Record<string, unknown> | null;
    wagered: string;
  }>(
    `SELECT u.id, u.username, u.is_banned, u.profile, trim_scale(COALESCE(s.total_wagered, 0))::text AS wagered
     FROM users u LEFT JOIN user_stats_usd s ON s.user_id = u.id WHERE u.id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(
    rows.map((r) => {
      const profile = r.profile ?? {};
      const isPrivate = typeof profile.isPrivate === 'boolean' ? profile.isPrivate : PROFILE_DEFAULTS.isPrivate;
      return [
        Number(r.id),
        {
          id: Number(r.id),
          username: r.username,
          isPrivate,
          avatar: typeof profile.avatar === 'string' ? profile.avatar : '',
          vipLevel: vipLevelOf(r.wagered as DecimalString),
          isBanned: r.is_banned,
        },
      ];
    }),
  );
};
