import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';

/** What the harness needs of a stream type: its decision, its fold, where a stream starts and a command's default metadata. */
export type Decider<Command extends { type: string }, Event, State, Meta extends object, Error extends { _tag: string }> = Readonly<{
  decide: (command: Command, state: State, meta: Meta) => Either<Error, readonly Event[]>;
  evolve: (state: State, event: Event) => State;
  initialState: NoInfer<State>;
  /** Metadata of the command under test, unless `when` overrides some of it. */
  meta: NoInfer<Meta>;
  /** Metadata of setup commands; the command's when absent. */
  setupMeta?: NoInfer<Meta>;
}>;

/** A setup step: events as they are, or events computed from the state so far (setup commands, see `applied`). */
export type Given<Event, State> = Event | readonly Event[] | ((state: State) => readonly Event[]);

const show = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** `given(...steps).when(command)` then `.then(...events)`, `.thenNothing()`, `.thenAccepted()` or `.thenFails('Tag', {fields})`. */
export const deciderSpec = <Command extends { type: string }, Event, State, Meta extends object, Error extends { _tag: string }>(
  decider: Decider<Command, Event, State, Meta, Error>,
) => {
  const fold = (state: State, events: readonly Event[]): State => events.reduce(decider.evolve, state);

  /** Setup: these commands already happened, each decided (and required to succeed) on the state the previous ones left. */
  const appliedWith =
    (meta: Partial<Meta>) =>
    (...commands: readonly Command[]) =>
    (state: State): readonly Event[] => {
      const setupMeta = { ...(decider.setupMeta ?? decider.meta), ...meta };
      const events: Event[] = [];
      for (const command of commands) {
        const result = decider.decide(command, fold(state, events), setupMeta);
        if (isLeft(result)) throw new Error(`setup command ${command.type} was refused: ${show(result.left)}`);
        events.push(...result.right);
      }
      return events;
    };

  const foldGiven = (steps: readonly Given<Event, State>[]): State =>
    steps.reduce<State>((state, step) => {
      const events =
        typeof step === 'function' ? (step as (s: State) => readonly Event[])(state) : Array.isArray(step) ? step : [step as Event];
      return fold(state, events);
    }, decider.initialState);

  const given = (...steps: readonly Given<Event, State>[]) => ({
    when: (command: Command, meta: Partial<Meta> = {}) => {
      const state = foldGiven(steps);
      const result = decider.decide(command, state, { ...decider.meta, ...meta });
      return {
        state,
        result,
        /** The command succeeds with exactly these events; returns the state after them. */
        then: (...expected: readonly Event[]): State => {
          expect(result).toEqual({ _tag: 'Right', right: expected });
          return fold(state, expected);
        },
        /** The command succeeds with some events (to inspect partially); returns them and the state after them. */
        thenAccepted: (): Readonly<{ events: readonly Event[]; state: State }> => {
          if (isLeft(result)) throw new Error(`expected events, got ${show(result.left)}`);
          expect(result.right.length).toBeGreaterThan(0);
          return { events: result.right, state: fold(state, result.right) };
        },
        /** The command is accepted as a repeat or a no-op: no new events. */
        thenNothing: (): void => {
          expect(result).toEqual({ _tag: 'Right', right: [] });
        },
        thenFails: (tag: Error['_tag'], fields: Partial<Record<string, unknown>> = {}): Error => {
          if (isRight(result)) throw new Error(`expected ${tag}, got events ${show(result.right)}`);
          expect(result.left).toMatchObject({ _tag: tag, ...fields });
          return result.left;
        },
      };
    },
  });

  return { given, applied: appliedWith({}), appliedWith, foldGiven, fold };
};
