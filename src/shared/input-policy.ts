import type { ErrorDetail } from './app-error.js';

/** Deepest nesting of objects and arrays any request needs; the deepest schema (filters) uses 4. */
export const MAX_INPUT_DEPTH = 32;

/** With the `u` flag a paired surrogate is one code point: only lone halves match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** NUL cannot be stored in PostgreSQL text or jsonb; a lone UTF-16 surrogate cannot be encoded as UTF-8. */
export const stringProblem = (value: string): string | undefined => {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must not contain lone UTF-16 surrogates';
  return undefined;
};

/** The first problem in a parsed value (keys, strings, depth), walked without recursion so that no depth can overflow the stack. */
export const inspectInput = (value: unknown, root: string): ErrorDetail | undefined => {
  const stack: Array<readonly [unknown, string, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [node, field, depth] = stack.pop()!;
    if (typeof node === 'string') {
      const problem = stringProblem(node);
      if (problem) return { field, message: problem };
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) return { field, message: `must not be nested deeper than ${MAX_INPUT_DEPTH} levels` };
    for (const [key, child] of Object.entries(node)) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field, message: `keys ${keyProblem}` };
      stack.push([child, `${field}.${key}`, depth + 1]);
    }
  }
  return undefined;
};
