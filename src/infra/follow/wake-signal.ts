/** Waiters pass the generation seen before their last read, so a wake-up between that read and the wait is never lost. */
export type WakeSignal = Readonly<{
  generation: () => number;
  wake: () => void;
  wait: (since: number, ms: number, abort: AbortSignal) => Promise<void>;
}>;

export const createWakeSignal = (): WakeSignal => {
  let generation = 0;
  const waiters = new Set<() => void>();
  return {
    generation: () => generation,
    wake: () => {
      generation += 1;
      for (const w of [...waiters]) w();
    },
    wait: (since, ms, abort) =>
      new Promise<void>((resolve) => {
        if (since !== generation || abort.aborted) return resolve();
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(done);
          abort.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
        abort.addEventListener('abort', done, { once: true });
      }),
  };
};
