import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edgeFold } from '../../src/domain/monitors/edge.js';

const observations = fc.array(fc.record({ subject: fc.constantFrom('a', 'b', 'c'), holds: fc.boolean() }), { maxLength: 60 });

describe('monitors: edge triggering', () => {
  it('fires once per false-to-true edge of each subject, never while the condition keeps holding', () => {
    fc.assert(
      fc.property(observations, (obs) => {
        const { fired } = edgeFold(obs);
        for (const subject of ['a', 'b', 'c']) {
          const seq = obs.filter((o) => o.subject === subject).map((o) => o.holds);
          const edges = seq.filter((h, i) => h && (i === 0 || !seq[i - 1])).length;
          expect(fired.filter((s) => s === subject)).toHaveLength(edges);
        }
      }),
    );
  });

  it('a fact observed again (replay) after firing fires nothing more', () => {
    fc.assert(
      fc.property(observations, (obs) => {
        const first = edgeFold(obs);
        const held = obs.filter((o) => first.state.get(o.subject) === true).map((o) => ({ subject: o.subject, holds: true }));
        expect(edgeFold(held, first.state).fired).toEqual([]);
      }),
    );
  });

  it('a single-fact subject fires on its first qualifying observation only', () => {
    expect(
      edgeFold([
        { subject: 'bet:1', holds: true },
        { subject: 'bet:1', holds: true },
      ]).fired,
    ).toEqual(['bet:1']);
    expect(edgeFold([{ subject: 'bet:1', holds: false }]).fired).toEqual([]);
  });
});
