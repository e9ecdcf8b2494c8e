import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { newId } from '../shared/ids.js';
import { decide } from '../domain/wallet/wallet.decide.js';
import { evolve } from '../domain/wallet/wallet.evolve.js';
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

/** A refused guard rejects the command with GuardRefused, for the caller to name the reason. */
export type Checks = Readonly<{ claims?: readonly KeyClaim[]; guards?: readonly BetGuardCheck[] }>;

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
}>;

/** A queued command, or (command null) a read that wants the wallet caught up with the store. */
type Pending = {
  command: WalletCommand | null;
  actor: Readonly<Record<string, unknown>> | undefined;
  claims: readonly KeyClaim[];
  guards: readonly BetGuardCheck[];
  resolve: (h: Handled) => void;
  reject: (e: unknown) => void;
};

const keyOf = (c: KeyClaim): string => `${c.kind}:${c.key}`;
type Slot = { userId: number; state: WalletState; revision: bigint; loaded: boolean; queue: Pending[]; running: boolean; weight: number };

/** A wallet remembers every bet, deposit, withdrawal, keyed operation and claim it had: about 600 bytes each in memory. */
const weightOf = (state: WalletState): number =>
  1 + state.bets.size + state.deposits.size + state.withdrawals.size + state.operations.size + state.claims.size;

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
      slot = { userId, state: initialWalletState(userId), revision: -1n, loaded: false, queue: [], running: false, weight: 1 };
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

  const catchUp = async (slot: Slot): Promise<void> => {
    const stream = walletStream(slot.userId);
    for (;;) {
      const events = await deps.store.readStream(stream, { fromRevision: slot.revision + 1n, maxCount: 1000 });
      let { state, revision } = slot;
      for (const e of events) {
        state = evolve(state, { type: e.type, data: e.data } as WalletEvent);
        revision = e.revision;
      }
      setState(slot, state);
      slot.revision = revision;
      if (events.length < 1000) break;
    }
    slot.loaded = true;
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
    const answer = (decided: Map<Pending, Handled>): Handled[] => batch.map((p) => refused.get(p) ?? decided.get(p)!);
    /** Commands whose keys belong to another wallet leave the batch with their own answer; the rest is decided again. */
    const refuseTaken = (taken: readonly KeyClaim[]): void => {
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
      const now = clock();
      let state = slot.state;
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
            events.push({ event, actor: p.actor, command: p.command!.type });
          }
          if (decision.right.length > 0) {
            claims.push(...p.claims);
            guards.push(...p.guards);
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
        const refusedBy = new Map<Pending, string>();
        outcome.refusals?.forEach((refusal, i) => {
          if (refusal && !refusedBy.has(guardOwners[i]!)) refusedBy.set(guardOwners[i]!, refusal);
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
      setState(slot, state);
      slot.revision = outcome.nextExpectedRevision;
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
    cachedEntries: () => cachedEntries,
  };
};
