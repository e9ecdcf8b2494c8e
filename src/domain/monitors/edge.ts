/**
 * Edge triggering: per monitor and subject a monitor holds or not. It fires when its condition becomes true, and
 * again only after it has been false in between. A single-fact monitor's subject is the fact itself: it fires once.
 */
export type EdgeState = ReadonlyMap<string, boolean>;

export type EdgeStep = Readonly<{ state: EdgeState; fired: boolean }>;

/** The condition of `subject` now `holds`: the next state, and whether this is a false-to-true edge. */
export const edgeStep = (state: EdgeState, subject: string, holds: boolean): EdgeStep => {
  const was = state.get(subject) ?? false;
  if (was === holds) return { state, fired: false };
  const next = new Map(state);
  next.set(subject, holds);
  return { state: next, fired: holds };
};

/** Folds observations in order; the subjects that fired, in order (one per false-to-true edge). */
export const edgeFold = (
  observations: readonly Readonly<{ subject: string; holds: boolean }>[],
  initial: EdgeState = new Map(),
): Readonly<{ state: EdgeState; fired: readonly string[] }> => {
  let state = initial;
  const fired: string[] = [];
  for (const o of observations) {
    const step = edgeStep(state, o.subject, o.holds);
    state = step.state;
    if (step.fired) fired.push(o.subject);
  }
  return { state, fired };
};
