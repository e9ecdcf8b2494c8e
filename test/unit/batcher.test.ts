import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../src/commands/batcher.js';

const deferred = () => {
  let release!: () => void;
  const promise = new Promise<void>((r) => {
    release = r;
  });
  return { promise, release };
};

describe('createBatcher (group commit)', () => {
  it('when idle, then an item is flushed at once on its own', async () => {
    const flushes: number[][] = [];
    const b = createBatcher<number, number>(async (items) => {
      flushes.push([...items]);
      return items.map((i) => i * 2);
    });
    expect(await b.submit(21)).toBe(42);
    expect(flushes).toEqual([[21]]);
  });

  it('when items arrive during a flush, then they leave together in the next flush', async () => {
    const gate = deferred();
    const flushes: number[][] = [];
    const b = createBatcher<number, number>(
      async (items) => {
        flushes.push([...items]);
        if (flushes.length === 1) await gate.promise;
        return items;
      },
      { concurrency: 1 },
    );
    const first = b.submit(0);
    const rest = [1, 2, 3, 4].map((i) => b.submit(i));
    gate.release();
    expect(await Promise.all([first, ...rest])).toEqual([0, 1, 2, 3, 4]);
    expect(flushes).toEqual([[0], [1, 2, 3, 4]]);
  });

  it('when a flush answers callers that submit again after several awaits, then they leave together in the next batch', async () => {
    const flushes: number[][] = [];
    const b = createBatcher<number, number>(
      async (items) => {
        flushes.push([...items]);
        await new Promise((r) => setTimeout(r, 1));
        return items;
      },
      { concurrency: 1 },
    );
    // What a command's caller does: a few async layers between one answer and its next submit.
    const layered = async (n: number): Promise<number> => b.submit(await Promise.resolve(await Promise.resolve(n)));
    const loop = async (client: number): Promise<void> => {
      for (let i = 0; i < 5; i += 1) await layered(client * 10 + i);
    };
    await Promise.all([0, 1, 2, 3].map(loop));
    // The first flush takes whoever came first and the last one whoever is left; every one between holds all four callers.
    expect(flushes.slice(1, -1).map((f) => f.length)).toEqual([4, 4, 4, 4]);
    expect(flushes.flat()).toHaveLength(20);
  });

  it('when two items share a key, then they never share a batch', async () => {
    const gate = deferred();
    const flushes: string[][] = [];
    const b = createBatcher<string, string>(
      async (items) => {
        flushes.push([...items]);
        if (flushes.length === 1) await gate.promise;
        return items;
      },
      { concurrency: 1, keyOf: (s) => (s as string)[0]! },
    );
    const all = [b.submit('x0'), b.submit('a1'), b.submit('a2'), b.submit('b1')];
    gate.release();
    await Promise.all(all);
    expect(flushes).toEqual([['x0'], ['a1', 'b1'], ['a2']]);
  });

  it('when a flush fails, then every caller of that batch gets the error and later items still flush', async () => {
    let calls = 0;
    const b = createBatcher<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
      return items;
    });
    await expect(b.submit(1)).rejects.toThrow('boom');
    expect(await b.submit(2)).toBe(2);
  });

  it('when more items wait than maxBatch, then they are split', async () => {
    const sizes: number[] = [];
    const gate = deferred();
    const b = createBatcher<number, number>(
      async (items) => {
        sizes.push(items.length);
        if (sizes.length === 1) await gate.promise;
        return items;
      },
      { concurrency: 1, maxBatch: 3 },
    );
    const all = Array.from({ length: 8 }, (_, i) => b.submit(i));
    gate.release();
    await Promise.all(all);
    expect(sizes).toEqual([1, 3, 3, 1]);
  });
});
