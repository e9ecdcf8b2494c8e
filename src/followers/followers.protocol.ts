import type { FollowerName } from './followers.js';

/** What the thread is started with: the database it follows and which followers it runs. */
export type FollowersThreadData = Readonly<{
  databaseUrl: string;
  schema?: string;
  only?: readonly FollowerName[];
  sealKey?: Uint8Array;
  coalesceMs?: number;
}>;

/** Posted in arrays, in order; the main thread writes the log lines, so lines of the two threads never interleave. */
export type FromFollowers =
  | Readonly<{ t: 'ready' }>
  | Readonly<{ t: 'failed'; message: string }>
  | Readonly<{ t: 'progress'; at: Readonly<Record<string, string>> }>
  | Readonly<{ t: 'bus'; eventName: string; message: Readonly<Record<string, unknown>> }>
  | Readonly<{ t: 'log'; line: string }>;

export type ToFollowers = Readonly<{ t: 'hurry' }> | Readonly<{ t: 'stop' }>;
