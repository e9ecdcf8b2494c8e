import { comparePositions, START, type EventStore, type Position } from './event-store.port.js';

export type TrackedEventStore = EventStore & Readonly<{ lastAppended: () => Position }>;

export const isTracked = (store: EventStore): store is TrackedEventStore =>
  typeof (store as Partial<TrackedEventStore>).lastAppended === 'function';

/** A command answered after its append holds a position at most `lastAppended()`: waiting for it makes a read see it. */
export const trackAppends = (store: EventStore): TrackedEventStore => {
  if (isTracked(store)) return store;
  let last: Position = START;
  const note = (p: Position): void => {
    if (comparePositions(p, last) > 0) last = p;
  };
  return {
    ...store,
    kind: store.kind,
    append: async (request) => {
      const result = await store.append(request);
      note(result.position);
      return result;
    },
    appendMany: async (requests) => {
      const outcomes = await store.appendMany(requests);
      for (const o of outcomes) if (!(o instanceof Error)) note(o.position);
      return outcomes;
    },
    readStream: (id, o) => store.readStream(id, o),
    readStreamBackward: (id, o) => store.readStreamBackward(id, o),
    readAll: (o) => store.readAll(o),
    headPosition: () => store.headPosition(),
    subscribe: (o) => store.subscribe(o),
    ping: () => store.ping(),
    close: () => store.close(),
    lastAppended: () => last,
  };
};
