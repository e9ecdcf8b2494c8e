import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { newId } from '../shared/ids.js';
import { WrongExpectedRevision, type EventStore } from '../infra/event-store/event-store.port.js';

type AnyEvent = Readonly<{ type: string; data: Readonly<Record<string, unknown>> }>;

export type StreamHandled<S, E, Err> = Readonly<{ decision: Either<Err, readonly E[]>; state: S; revision: bigint }>;

export type StreamDecider<S, E extends AnyEvent, C, M, Err> = Readonly<{
  streamOf: (id: number) => string;
  initial: (id: number) => S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S, meta: M) => Either<Err, readonly E[]>;
}>;

export class StreamConflictRetriesExhausted extends Error {
  override readonly name = 'StreamConflictRetriesExhausted';
}

/** No cache: reads are always current, which access decisions need. */
export const createStreamHandler = <S, E extends AnyEvent, C extends { type: string }, M, Err>(
  store: EventStore,
  decider: StreamDecider<S, E, C, M, Err>,
  maxRetries = 5,
) => {
  const load = async (id: number): Promise<{ state: S; revision: bigint }> => {
    let state = decider.initial(id);
    let revision = -1n;
    for (;;) {
      const events = await store.readStream(decider.streamOf(id), { fromRevision: revision + 1n, maxCount: 1000 });
      for (const e of events) {
        state = decider.evolve(state, { type: e.type, data: e.data } as E);
        revision = e.revision;
      }
      if (events.length < 1000) return { state, revision };
    }
  };

  const handle = async (
    id: number,
    command: C,
    meta: M,
    metadata: Readonly<Record<string, unknown>> = {},
  ): Promise<StreamHandled<S, E, Err>> => {
    for (let attempt = 0; ; attempt += 1) {
      const { state, revision } = await load(id);
      const decision = decider.decide(command, state, meta);
      if (isLeft(decision) || decision.right.length === 0) return { decision, state, revision };
      try {
        const result = await store.append({
          streamId: decider.streamOf(id),
          expectedRevision: revision < 0n ? 'no_stream' : revision,
          events: decision.right.map((e) => ({
            id: newId(),
            type: e.type,
            data: e.data,
            metadata: { command: command.type, ...metadata },
          })),
        });
        return { decision, state: decision.right.reduce(decider.evolve, state), revision: result.nextExpectedRevision };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        if (attempt >= maxRetries) throw new StreamConflictRetriesExhausted(`${decider.streamOf(id)}: ${attempt + 1} conflicting attempts`);
      }
    }
  };

  return { load, handle };
};
