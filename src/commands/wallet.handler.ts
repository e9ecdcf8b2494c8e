import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import { v7 as uuidv7 } from 'uuid';
import { decide } from '../domain/wallet/wallet.decide.js';
import { evolve } from '../domain/wallet/wallet.evolve.js';
import type { WalletCommand } from '../domain/wallet/wallet.commands.js';
import type { WalletError } from '../domain/wallet/wallet.errors.js';
import { walletStream, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { initialWalletState, type WalletState } from '../domain/wallet/wallet.state.js';
import {
  comparePositions,
  START,
  WrongExpectedRevision,
  type AppendOutcome,
  type AppendRequest,
  type EventStore,
  type Position,
} from '../infra/event-store/event-store.port.js';
import { createBatcher } from './batcher.js';

/** What one command did: its decision and the wallet right after its own events. */
export type Handled = Readonly<{
  decision: Either<WalletError, readonly WalletEvent[]>;
  state: WalletState;
  /** Global position of the command's last event (undefined when it appended nothing). */
  position: Position | undefined;
}>;

export type WalletHandler = Readonly<{
  handle: (userId: number, command: WalletCommand, actor?: Readonly<Record<string, unknown>>) => Promise<Handled>;
  /** The wallet as this process knows it, caught up with the store. */
  load: (userId: number) => Promise<WalletState>;
  /** The cached wallet if this process has one (may trail other processes; fine for immutable facts). */
  peek: (userId: number) => WalletState | undefined;
  /** The highest position this process has appended (read-your-writes: wait for projections to reach it). */
  lastPosition: () => Position;
  /** Drop cached state (tests, or after a conflict storm). */
  evict: (userId?: number) => void;
}>;

export type WalletHandlerDeps = Readonly<{
  store: EventStore;
  clock?: () => Date;
  /** Commands of one wallet decided together and appended as one write. */
  maxCommandsPerAppend?: number;
  /** Conflicts with another process are retried this many times before failing. */
  maxConflictRetries?: number;
  /** Wallet states kept in memory. */
  cacheSize?: number;
  appendConcurrency?: number;
}>;

/** A queued command, or (command null) a read that wants the wallet caught up with the store. */
type Pending = { command: WalletCommand | null; actor: Readonly<Record<string, unknown>> | undefined; resolve: (h: Handled) => void; reject: (e: unknown) => void };
type Slot = { userId: number; state: WalletState; revision: bigint; loaded: boolean; queue: Pending[]; running: boolean };

export class ConcurrencyRetriesExhausted extends Error {
  override readonly name = 'ConcurrencyRetriesExhausted';
}

/**
 * Runs wallet commands: read stream -> evolve -> decide -> append with the expected revision.
 * Each wallet is an actor in this process (its commands are decided in order against cached state,
 * so they never conflict with each other here); appends of all wallets are group-committed.
 * Another process writing the same wallet is caught by the expected revision: reload and retry.
 */
export const createWalletHandler = (deps: WalletHandlerDeps): WalletHandler => {
  const clock = deps.clock ?? (() => new Date());
  const maxPerAppend = deps.maxCommandsPerAppend ?? 64;
  const maxRetries = deps.maxConflictRetries ?? 8;
  const cacheSize = deps.cacheSize ?? 50_000;
  const slots = new Map<number, Slot>();
  let lastPosition: Position = START;
  const committer = createBatcher<AppendRequest, AppendOutcome>((reqs) => deps.store.appendMany(reqs), {
    maxBatch: 256,
    concurrency: deps.appendConcurrency ?? 3,
    keyOf: (r) => (r as AppendRequest).streamId,
  });

  const slotOf = (userId: number): Slot => {
    let slot = slots.get(userId);
    if (slot) {
      slots.delete(userId); // re-insert: Map order is our LRU order
    } else {
      slot = { userId, state: initialWalletState(userId), revision: -1n, loaded: false, queue: [], running: false };
    }
    slots.set(userId, slot);
    if (slots.size > cacheSize) {
      for (const [id, s] of slots) {
        if (slots.size <= cacheSize) break;
        if (!s.running && s.queue.length === 0 && id !== userId) slots.delete(id);
      }
    }
    return slot;
  };

  /** Folds the events appended since the slot's revision (all of them on first load). */
  const catchUp = async (slot: Slot): Promise<void> => {
    const stream = walletStream(slot.userId);
    for (;;) {
      const events = await deps.store.readStream(stream, { fromRevision: slot.revision + 1n, maxCount: 1000 });
      for (const e of events) {
        slot.state = evolve(slot.state, { type: e.type, data: e.data } as WalletEvent);
        slot.revision = e.revision;
      }
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
          slot.state = initialWalletState(slot.userId);
          slot.revision = -1n;
          batch.forEach((p) => p.reject(error));
        }
      }
    } finally {
      slot.running = false;
    }
  };

  /** Consecutive commands (or consecutive reads) leave the queue together. */
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
    for (let attempt = 0; ; attempt += 1) {
      if (!slot.loaded) await catchUp(slot);
      const now = clock();
      let state = slot.state;
      const decided: { decision: Handled['decision']; state: WalletState; lastIndex: number }[] = [];
      const events: { event: WalletEvent; actor: Pending['actor']; command: string }[] = [];
      for (const p of batch) {
        const decision = decide(p.command!, state, { userId: slot.userId, now });
        if (!isLeft(decision)) {
          for (const event of decision.right) {
            state = evolve(state, event);
            events.push({ event, actor: p.actor, command: p.command!.type });
          }
        }
        decided.push({ decision, state, lastIndex: events.length - 1 });
      }
      if (events.length === 0) {
        // Nothing to append, so no expected revision catches a stale cache: another process (a second API) may have
        // appended what this refusal says is missing (a deposit it created, funds it credited). Refuse only on fresh state.
        if (decided.some((d) => isLeft(d.decision)) && attempt === 0) {
          const cached = slot.revision;
          await catchUp(slot);
          if (slot.revision !== cached) continue;
        }
        return decided.map((d) => ({ decision: d.decision, state: d.state, position: undefined }));
      }

      const outcome = await committer.submit({
        streamId: walletStream(slot.userId),
        expectedRevision: slot.revision < 0n ? 'no_stream' : slot.revision,
        events: events.map(({ event, actor, command }) => ({
          id: uuidv7(),
          type: event.type,
          data: event.data,
          metadata: { userId: slot.userId, command, ...(actor ?? {}) },
        })),
      });
      if (outcome instanceof WrongExpectedRevision) {
        if (attempt >= maxRetries) throw new ConcurrencyRetriesExhausted(`wallet ${slot.userId}: ${attempt + 1} conflicting attempts`);
        await catchUp(slot); // another process appended: fold its events and decide again
        continue;
      }
      if (outcome instanceof Error) throw outcome;
      slot.state = state;
      slot.revision = outcome.nextExpectedRevision;
      if (comparePositions(outcome.position, lastPosition) > 0) lastPosition = outcome.position;
      // The store reports the position of the append's last event: it bounds every command of the batch.
      return decided.map((d) => ({
        decision: d.decision,
        state: d.state,
        position: isLeft(d.decision) || d.decision.right.length === 0 ? undefined : outcome.position,
      }));
    }
  };

  const enqueue = (userId: number, command: WalletCommand | null, actor?: Pending['actor']): Promise<Handled> =>
    new Promise<Handled>((resolve, reject) => {
      const slot = slotOf(userId);
      slot.queue.push({ command, actor, resolve, reject });
      if (!slot.running) void run(slot);
    });

  return {
    handle: (userId, command, actor) => enqueue(userId, command, actor),
    load: async (userId) => (await enqueue(userId, null)).state,
    lastPosition: () => lastPosition,
    peek: (userId) => {
      const slot = slots.get(userId);
      return slot?.loaded ? slot.state : undefined;
    },
    evict: (userId) => {
      if (userId === undefined) slots.clear();
      else slots.delete(userId);
    },
  };
};
