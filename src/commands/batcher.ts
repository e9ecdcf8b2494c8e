/** Natural batching: items arriving during a flush leave together in the next; no timer, so no added latency. */
export type Batcher<I, O> = Readonly<{ submit: (item: I) => Promise<O>; pending: () => number }>;

export type BatcherOptions = Readonly<{
  maxBatch?: number;
  /** Flushes allowed in flight at once (each one uses its own pooled connection). */
  concurrency?: number;
  /** Items that may not share a batch (e.g. two appends to one stream) are kept for the next flush. */
  keyOf?: (item: unknown) => string;
}>;

type Waiter<I, O> = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };

export const createBatcher = <I, O>(flush: (items: readonly I[]) => Promise<readonly O[]>, options: BatcherOptions = {}): Batcher<I, O> => {
  const maxBatch = options.maxBatch ?? 500;
  const concurrency = options.concurrency ?? 2;
  const queue: Waiter<I, O>[] = [];
  let inFlight = 0;

  const take = (): Waiter<I, O>[] => {
    if (!options.keyOf) return queue.splice(0, maxBatch);
    const seen = new Set<string>();
    const batch: Waiter<I, O>[] = [];
    for (let i = 0; i < queue.length && batch.length < maxBatch;) {
      const key = options.keyOf(queue[i]!.item);
      if (seen.has(key)) {
        i += 1;
        continue;
      }
      seen.add(key);
      batch.push(queue.splice(i, 1)[0]!);
    }
    return batch;
  };

  const pump = (): void => {
    while (inFlight < concurrency && queue.length > 0) {
      const batch = take();
      inFlight += 1;
      flush(batch.map((w) => w.item))
        .then((outputs) => {
          if (outputs.length !== batch.length) throw new Error(`batch flush returned ${outputs.length} results for ${batch.length} items`);
          batch.forEach((w, i) => w.resolve(outputs[i]!));
        })
        .catch((error: unknown) => batch.forEach((w) => w.reject(error)))
        .finally(() =>
          // The slot stays taken until the answers' callbacks have run, so the callers they release leave together in the next
          // batch instead of one by one in flushes of their own.
          setImmediate(() => {
            inFlight -= 1;
            pump();
          }),
        );
    }
  };

  return {
    submit: (item) =>
      new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      }),
    pending: () => queue.length,
  };
};
