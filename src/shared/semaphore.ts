/** At most `n` of the given tasks run at once; the others wait in order. */
export const semaphore = (n: number) => {
  let free = n;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else free += 1;
    }
  };
};
export type Limit = ReturnType<typeof semaphore>;
