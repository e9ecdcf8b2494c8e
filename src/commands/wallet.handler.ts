import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { newId } from '../shared/ids.js';
import { decide } from '../domain/wallet/wallet.decide.js';
import { evolve } from '../domain/wallet/wallet.evolve.js';
import {
  evolveOpen,
  forgetFinal,
  holdsItem,
  itemKeysOfCommand,
  itemKeysOfEvent,
  openItems,
  primaryItemKey,
  withRecalled,
  type ItemKey,
} from '../domain/wallet/wallet.items.js';
import type { WalletCommand } from '../domain/wallet/wallet.commands.js';
import type { WalletError } from '../domain/wallet/wallet.errors.js';
import { walletStream, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { initialWalletState, type WalletState } from '../domain/wallet/wallet.state.js';
import {
  AppendRefused,
  comparePositions,
  GuardRefused,
  KeyOwnedElsewhere,
  START,
  WrongExpectedRevision,
  type AppendOutcome,
  type AppendRequest,
  type BetGuardCheck,
  type EventStore,
  type KeyClaim,
  type Position,
} from '../infra/event-store/event-store.port.js';
import { createBatcher } from './batcher.js';
import { WALLET_ITEM_KEYS } from './wallet-items.js';
import { decodeWalletSnapshot, encodeWalletSnapshot } from './wallet-snapshot.js';

/**
 * A guard check, or how to make it from the wallet as the command leaves it (its events folded in) and those events:
 * a check whose figures count the wallet's tallies (deposit and loss limits) is made as the command is decided.
 */
export type WalletGuard = BetGuardCheck | ((state: WalletState, events: readonly WalletEvent[]) => BetGuardCheck);

/** A refused guard rejects the command with GuardRefused, for the caller to name the reason. */
export type Checks = Readonly<{ claims?: readonly KeyClaim[]; guards?: readonly WalletGuard[] }>;

export type Handled = Readonly<{
  decision: Either<WalletError, readonly WalletEvent[]>;
  state: WalletState;
  /** Global position of the command's last event (undefined when it appended nothing). */
  position: Position | undefined;
}>;

export type WalletHandler = Readonly<{
  /** Claims are taken only when the command is accepted; a key owned by another wallet refuses it (IdempotencyConflict). */
  handle: (userId: number, command: WalletCommand, actor?: Readonly<Record<string, unknown>>, checks?: Checks) => Promise<Handled>;
  load: (userId: number) => Promise<WalletState>;
  /** The cached wallet if this process has one (may trail other processes; fine for immutable facts). */
  peek: (userId: number) => WalletState | undefined;
  /** The wallet with the items named by `keys` added, final ones looked up by key (for immutable facts such as a bet's currency). */
  lookup: (userId: number, keys: readonly ItemKey[]) => Promise<WalletState>;
  /** Catches the wallet up and writes its snapshot now if it has events after the last one (a period's close does). */
  snapshot: (userId: number) => Promise<void>;
  /** The highest position this process has appended (read-your-writes: wait for projections to reach it). */
  lastPosition: () => Position;
  cachedEntries: () => number;
}>;

export type WalletHandlerDeps = Readonly<{
  store: EventStore;
  clock?: () => Date;
  /** Commands of one wallet decided together and appended as one write. */
  maxCommandsPerAppend?: number;
  /** Conflicts with another process are retried this many times before failing. */
  maxConflictRetries?: number;
  cacheSize?: number;
  /** Memory bound of the cache, in remembered entries (`weightOf`): idle wallets leave, least recently used first, past it. */
  cacheEntries?: number;
  appendConcurrency?: number;
  /** For stores that cannot claim keys in the append: claims first, returns keys owned by someone else. */
  claimKeys?: (claims: readonly KeyClaim[]) => Promise<readonly KeyClaim[]>;
  onClaimed?: (claims: readonly KeyClaim[]) => void;
  /** A snapshot of the kept state is written once this many events were appended since the last one (default 100). */
  snapshotEvery?: number;
  /** A snapshot that could not be written (the next command tries again); commands never wait for one. */
  onSnapshotError?: (error: unknown) => void;
}>;

/** A queued command, or (command null) a read that wants the wallet caught up with the store. */
type Pending = {
  command: WalletCommand | null;
  actor: Readonly<Record<string, unknown>> | undefined;
  claims: readonly KeyClaim[];
  guards: readonly WalletGuard[];
  resolve: (h: Handled) => void;
  reject: (e: unknown) => void;
};

const keyOf = (c: KeyClaim): string => `${c.kind}:${c.key}`;
type Slot = {
  userId: number;
  state: WalletState;
  revision: bigint;
  loaded: boolean;
  queue: Pending[];
  running: boolean;
  weight: number;
  /** Revision of the latest snapshot written or read (-1: none). */
  snapshotRevision: bigint;
  snapshotting: boolean;
};

/** A wallet keeps its balances and its open items (about 600 bytes each); final items are looked up by key when asked for. */
const weightOf = (state: WalletState): number => 1 + openItems(state);

/** The claim that a PlaceBet makes on its bet id, if it makes one: the append then tells a reused id from a new one. */
const betClaimOf = (p: Pending): KeyClaim | undefined => {
  const command = p.command;
  return command?.type === 'PlaceBet' ? p.claims.find((c) => c.kind === 'bet' && c.key === command.data.betId) : undefined;
};
const claimItemKey = (c: KeyClaim): ItemKey => (c.kind === 'bet' ? `bet:${c.key}` : `${c.kind}:${c.key}`);

export class ConcurrencyRetriesExhausted extends Error {
  override readonly name = 'ConcurrencyRetriesExhausted';
}

/** One actor per wallet here, so its commands never conflict in-process; another process is caught by the expected revision. */
export const createWalletHandler = (deps: WalletHandlerDeps): WalletHandler => {
  const clock = deps.clock ?? (() => new Date());
  const maxPerAppend = deps.maxCommandsPerAppend ?? 64;
  const maxRetries = deps.maxConflictRetries ?? 8;
  const cacheSize = deps.cacheSize ?? 50_000;
  const cacheEntries = deps.cacheEntries ?? 1_000_000;
  const snapshotEvery = BigInt(deps.snapshotEvery ?? 100);
  /** Whether the append (or the claim before it) can tell a bet id's first use, so a new bet needs no lookup by key. */
  const claimsTellReuse = deps.store.claimsKeys || deps.claimKeys !== undefined;
  const slots = new Map<number, Slot>();
  let cachedEntries = 0;
  let lastPosition: Position = START;
  const committer = createBatcher<AppendRequest, AppendOutcome>((reqs) => deps.store.appendMany(reqs), {
    maxBatch: 256,
    concurrency: deps.appendConcurrency ?? deps.store.appendConcurrency ?? 3,
    keyOf: (r) => (r as AppendRequest).streamId,
  });

  const slotOf = (userId: number): Slot => {
    let slot = slots.get(userId);
    if (slot) {
      slots.delete(userId); // re-insert: Map order is our LRU order
    } else {
      slot = {
        userId,
        state: initialWalletState(userId),
        revision: -1n,
        loaded: false,
        queue: [],
        running: false,
        weight: 1,
        snapshotRevision: -1n,
        snapshotting: false,
      };
      cachedEntries += 1;
    }
    slots.set(userId, slot);
    trim(userId);
    return slot;
  };

  const drop = (slot: Slot): void => {
    if (slots.get(slot.userId) !== slot) return;
    slots.delete(slot.userId);
    cachedEntries -= slot.weight;
  };

  const trim = (keep?: number): void => {
    if (slots.size <= cacheSize && cachedEntries <= cacheEntries) return;
    for (const s of slots.values()) {
      if (slots.size <= cacheSize && cachedEntries <= cacheEntries) break;
      if (!s.running && s.queue.length === 0 && s.userId !== keep) drop(s);
    }
  };

  const setState = (slot: Slot, state: WalletState): void => {
    slot.state = state;
    const weight = weightOf(state);
    if (slots.get(slot.userId) === slot) cachedEntries += weight - slot.weight;
    slot.weight = weight;
  };

  /** Writes the slot's kept state, at its revision, as the stream's snapshot. */
  const writeSnapshot = async (slot: Slot): Promise<void> => {
    const { state, revision } = slot;
    await deps.store.writeSnapshot(walletStream(slot.userId), { revision, data: encodeWalletSnapshot(state) });
    if (revision > slot.snapshotRevision) slot.snapshotRevision = revision;
  };

  /** Writes the snapshot once enough events passed since the last; never awaited by a command. */
  const maybeSnapshot = (slot: Slot): void => {
    if (slot.snapshotting || slot.revision < 0n || slot.revision - slot.snapshotRevision < snapshotEvery) return;
    slot.snapshotting = true;
    void writeSnapshot(slot)
      .catch((error: unknown) => deps.onSnapshotError?.(error))
      .finally(() => {
        slot.snapshotting = false;
      });
  };

  /** A wallet read from nothing starts at its snapshot; then the events after it, forgetting items as they become final. */
  const catchUp = async (slot: Slot): Promise<void> => {
    const stream = walletStream(slot.userId);
    if (slot.revision < 0n) {
      const snapshot = await deps.store.readSnapshot(stream);
      const state = snapshot && decodeWalletSnapshot(slot.userId, snapshot.data);
      if (snapshot && state) {
        setState(slot, state);
        slot.revision = snapshot.revision;
        slot.snapshotRevision = snapshot.revision;
      }
    }
    for (;;) {
      const events = await deps.store.readStream(stream, { fromRevision: slot.revision + 1n, maxCount: 1000 });
      let { state, revision } = slot;
      for (const e of events) {
        state = evolveOpen(state, { type: e.type, data: e.data } as WalletEvent);
        revision = e.revision;
      }
      setState(slot, state);
      slot.revision = revision;
      if (events.length < 1000) break;
    }
    slot.loaded = true;
    maybeSnapshot(slot);
  };

  /** The events of the items named by `keys`, up to the slot's revision; an item found by its second name brings all of its own. */
  const recall = async (userId: number, keys: readonly ItemKey[], toRevision?: bigint): Promise<WalletEvent[]> => {
    if (keys.length === 0 || (toRevision !== undefined && toRevision < 0n)) return [];
    const stream = walletStream(userId);
    const options = { rule: WALLET_ITEM_KEYS, ...(toRevision === undefined ? {} : { toRevision }) };
    const found = await deps.store.readStreamByKeys(stream, keys, options);
    const asked = new Set(keys);
    const more = [...new Set(found.map((e) => primaryItemKey(e.data)))].filter((k): k is ItemKey => k !== undefined && !asked.has(k));
    const rest = more.length > 0 ? await deps.store.readStreamByKeys(stream, more, options) : [];
    const byRevision = new Map([...found, ...rest].map((e) => [e.revision, e]));
    return [...byRevision.values()]
      .sort((a, b) => (a.revision < b.revision ? -1 : 1))
      .map((e) => ({ type: e.type, data: e.data }) as WalletEvent);
  };

  const run = async (slot: Slot): Promise<void> => {
    slot.running = true;
    try {
      while (slot.queue.length > 0) {
        const batch = takeBatch(slot.queue);
        try {
          const results = batch[0]!.command === null ? await readLatest(slot, batch.length) : await decideAndAppend(slot, batch);
          batch.forEach((p, i) => p.resolve(results[i]!));
        } catch (error) {
          slot.loaded = false; // state may be stale: reload before the next command
          setState(slot, initialWalletState(slot.userId));
          slot.revision = -1n;
          batch.forEach((p) => p.reject(error));
        }
      }
    } finally {
      slot.running = false;
      trim();
    }
  };

  const takeBatch = (queue: Pending[]): Pending[] => {
    const isRead = queue[0]!.command === null;
    let n = 0;
    while (n < queue.length && n < maxPerAppend && (queue[n]!.command === null) === isRead) n += 1;
    return queue.splice(0, n);
  };

  const readLatest = async (slot: Slot, count: number): Promise<Handled[]> => {
    await catchUp(slot);
    return Array.from({ length: count }, () => ({ decision: right([]), state: slot.state, position: undefined }));
  };

  const decideAndAppend = async (slot: Slot, batch: readonly Pending[]): Promise<Handled[]> => {
    const refused = new Map<Pending, Handled>();
    let live = batch;
    /** Keys looked up by this call (found or not): their claims are no longer fresh. */
    const looked = new Set<ItemKey>();
    /** Bet ids the append found already used by this wallet: looked up before the next decision. */
    const reused = new Set<ItemKey>();
    const answer = (decided: Map<Pending, Handled>): Handled[] => batch.map((p) => refused.get(p) ?? decided.get(p)!);
    /**
     * Commands whose keys belong to another wallet leave the batch with their own answer; a fresh claim whose key this
     * wallet already used sends its item to be looked up; the rest is decided again.
     */
    const refuseTaken = (claimed: readonly KeyClaim[]): void => {
      for (const c of claimed) if (c.owner === slot.userId) reused.add(claimItemKey(c));
      const taken = claimed.filter((c) => c.owner !== slot.userId);
      const keys = new Set(taken.map(keyOf));
      for (const p of live) {
        const clash = p.claims.find((c) => keys.has(keyOf(c)));
        if (clash) {
          const message = `${clash.kind} ${clash.key} belongs to another user`;
          refused.set(p, {
            decision: left({ _tag: 'IdempotencyConflict', key: keyOf(clash), message }),
            state: slot.state,
            position: undefined,
          });
        }
      }
      live = live.filter((p) => !refused.has(p));
    };
    for (let attempt = 0; ; attempt += 1) {
      if (live.length === 0) return answer(new Map());
      if (!slot.loaded) await catchUp(slot);
      // The items each command names that the wallet does not hold (final, or never seen) are looked up by key; a new
      // bet is not: its fresh claim in the append tells a reused id, which is then looked up and decided again.
      const wanted = new Set<ItemKey>();
      for (const p of live) {
        const betClaim = claimsTellReuse ? betClaimOf(p) : undefined;
        if (betClaim && !reused.has(claimItemKey(betClaim))) continue;
        for (const k of itemKeysOfCommand(p.command!)) if (!holdsItem(slot.state, k)) wanted.add(k);
      }
      const recalled = await recall(slot.userId, [...wanted], slot.revision);
      wanted.forEach((k) => looked.add(k));
      const now = clock();
      let state = withRecalled(slot.state, recalled);
      const touched = new Set<ItemKey>(recalled.flatMap((e) => itemKeysOfEvent(e.type, e.data)));
      const decided: { pending: Pending; decision: Handled['decision']; state: WalletState }[] = [];
      const events: { event: WalletEvent; actor: Pending['actor']; command: string }[] = [];
      const claims: KeyClaim[] = [];
      const guards: BetGuardCheck[] = [];
      /** Whose each guard check is, in order. */
      const guardOwners: Pending[] = [];
      for (const p of live) {
        const decision = decide(p.command!, state, { userId: slot.userId, now });
        if (!isLeft(decision)) {
          for (const event of decision.right) {
            state = evolve(state, event);
            itemKeysOfEvent(event.type, event.data).forEach((k) => touched.add(k));
            events.push({ event, actor: p.actor, command: p.command!.type });
          }
          if (decision.right.length > 0) {
            const betClaim = betClaimOf(p);
            claims.push(...p.claims.map((c) => (c === betClaim && !looked.has(claimItemKey(c)) ? { ...c, fresh: true } : c)));
            guards.push(...p.guards.map((g) => (typeof g === 'function' ? g(state, decision.right) : g)));
            guardOwners.push(...p.guards.map(() => p));
          }
        }
        decided.push({ pending: p, decision, state });
      }
      const untouched = (): Handled[] =>
        answer(new Map(decided.map((d) => [d.pending, { decision: d.decision, state: d.state, position: undefined }])));
      if (events.length === 0) {
        // Nothing appended, so no expected revision catches a stale cache: refuse only on fresh state.
        if (decided.some((d) => isLeft(d.decision)) && attempt === 0) {
          const cached = slot.revision;
          await catchUp(slot);
          if (slot.revision !== cached) continue;
        }
        return untouched();
      }

      const inAppend = claims.length > 0 && deps.store.claimsKeys;
      if (claims.length > 0 && !deps.store.claimsKeys && deps.claimKeys) {
        const taken = await deps.claimKeys(claims);
        if (taken.length > 0) {
          refuseTaken(taken);
          continue;
        }
      }
      const outcome = await committer.submit({
        streamId: walletStream(slot.userId),
        expectedRevision: slot.revision < 0n ? 'no_stream' : slot.revision,
        events: events.map(({ event, actor, command }) => ({
          id: newId(),
          type: event.type,
          data: event.data,
          metadata: { userId: slot.userId, command, ...(actor ?? {}) },
        })),
        ...(inAppend ? { claims } : {}),
        ...(guards.length > 0 && deps.store.claimsKeys ? { guards } : {}),
      });
      if (outcome instanceof GuardRefused) {
        // The refused commands leave with what refused each; the others are decided again. A store that does not say
        // which check refused leaves every guarded command to its caller, who asks the rule again.
        // Checks with figures count the commands before them in the batch: past the first refused, the others may pass
        // once it has left, so only it leaves.
        const firstOnly = guards.some((g) => g.figures !== undefined);
        const refusedBy = new Map<Pending, string>();
        outcome.refusals?.forEach((refusal, i) => {
          if (refusal && !refusedBy.has(guardOwners[i]!) && !(firstOnly && refusedBy.size > 0)) refusedBy.set(guardOwners[i]!, refusal);
        });
        for (const p of live) {
          if (p.guards.length === 0 || (outcome.refusals && !refusedBy.has(p))) continue;
          const refusal = refusedBy.get(p);
          p.reject(refusal === undefined ? outcome : new GuardRefused(outcome.streamId, [refusal]));
          refused.set(p, { decision: right([]), state: slot.state, position: undefined }); // ignored: already rejected
        }
        live = live.filter((p) => !refused.has(p));
        continue;
      }
      if (outcome instanceof KeyOwnedElsewhere) {
        refuseTaken(outcome.claims);
        continue;
      }
      if (outcome instanceof AppendRefused && live.length > 1) return answer(await oneByOne(slot, live));
      if (outcome instanceof WrongExpectedRevision) {
        if (attempt >= maxRetries) throw new ConcurrencyRetriesExhausted(`wallet ${slot.userId}: ${attempt + 1} conflicting attempts`);
        await catchUp(slot); // another process appended: fold its events and decide again
        continue;
      }
      if (outcome instanceof Error) throw outcome;
      setState(slot, forgetFinal(state, touched));
      slot.revision = outcome.nextExpectedRevision;
      maybeSnapshot(slot);
      if (comparePositions(outcome.position, lastPosition) > 0) lastPosition = outcome.position;
      if (claims.length > 0) deps.onClaimed?.(claims);
      // The store reports the position of the append's last event: it bounds every command of the batch.
      return answer(
        new Map(
          decided.map((d) => [
            d.pending,
            {
              decision: d.decision,
              state: d.state,
              position: isLeft(d.decision) || d.decision.right.length === 0 ? undefined : outcome.position,
            },
          ]),
        ),
      );
    }
  };

  /** Decided and appended one by one so only the culprit fails; run() resolving it again is ignored. */
  const oneByOne = async (slot: Slot, live: readonly Pending[]): Promise<Map<Pending, Handled>> => {
    const handled = new Map<Pending, Handled>();
    for (const p of live) {
      try {
        handled.set(p, (await decideAndAppend(slot, [p]))[0]!);
      } catch (error) {
        p.reject(error);
        handled.set(p, { decision: right([]), state: slot.state, position: undefined });
      }
    }
    return handled;
  };

  const enqueue = (userId: number, command: WalletCommand | null, actor?: Pending['actor'], checks: Checks = {}): Promise<Handled> =>
    new Promise<Handled>((resolve, reject) => {
      const slot = slotOf(userId);
      slot.queue.push({ command, actor, claims: checks.claims ?? [], guards: checks.guards ?? [], resolve, reject });
      if (!slot.running) void run(slot);
    });

  return {
    handle: (userId, command, actor, checks) => enqueue(userId, command, actor, checks),
    load: async (userId) => (await enqueue(userId, null)).state,
    lastPosition: () => lastPosition,
    peek: (userId) => {
      const slot = slots.get(userId);
      return slot?.loaded ? slot.state : undefined;
    },
    snapshot: async (userId) => {
      await enqueue(userId, null);
      const slot = slots.get(userId);
      if (slot && slot.revision >= 0n && slot.revision > slot.snapshotRevision) await writeSnapshot(slot);
    },
    lookup: async (userId, keys) => {
      const slot = slots.get(userId);
      const state = slot?.loaded ? slot.state : (await enqueue(userId, null)).state;
      const missing = keys.filter((k) => !holdsItem(state, k));
      return missing.length === 0 ? state : withRecalled(state, await recall(userId, missing));
    },
    cachedEntries: () => cachedEntries,
  };
};
