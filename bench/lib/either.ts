import { isLeft, type Either } from 'fp-ts/lib/Either.js';

/** The value of a command the bench expects to succeed; a refusal stops the run, naming it. */
export const must = <T>(e: Either<unknown, T>): T => {
  if (isLeft(e)) throw new Error(JSON.stringify(e.left));
  return e.right;
};
