import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';

describe('newId', () => {
  it('when many ids are made, past several refills of the random pool, then each is a distinct UUID v7', () => {
    const ids = Array.from({ length: 5000 }, newId);
    expect(ids.every((id) => validate(id) && version(id) === 7)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when ids are made in a burst (many in one millisecond) and a few milliseconds apart, then they sort in the order made', async () => {
    const burst = Array.from({ length: 2000 }, newId);
    await new Promise((r) => setTimeout(r, 3));
    const later = newId();
    const made = [...burst, later];
    expect([...made].sort()).toEqual(made);
  });
});
