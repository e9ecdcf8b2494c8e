import type { RequestHandler } from 'express';
import { validationFailed, type ErrorDetail } from './errors.js';

/**
 * The one input policy at the edge of every surface (public API, back office, internal API, socket
 * messages): values PostgreSQL cannot store or that only serve to exhaust the process are refused before
 * any route sees them, as a 400 naming the field. Per-field rules (dates, decimals) live in the shared
 * schemas of ./validate.ts; this walks what every request carries, whatever the route.
 */

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

/**
 * The first problem in a parsed value (keys, strings, depth), walked without recursion so that no depth
 * can overflow the stack. `root` names where it came from ('body', 'query', 'message').
 */
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

/** A query value that is JSON (`where={...}` on list routes) is checked as the value it becomes. */
const queryValue = (value: string): unknown => {
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

const pathProblem = (path: string): ErrorDetail | undefined => {
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { field: 'params', message: 'the path holds malformed percent-encoding' };
    }
    const problem = stringProblem(decoded);
    if (problem) return { field: 'params', message: `the path ${problem}` };
  }
  return undefined;
};

const queryProblem = (url: string): ErrorDetail | undefined => {
  const at = url.indexOf('?');
  if (at < 0) return undefined;
  for (const [key, value] of new URLSearchParams(url.slice(at + 1))) {
    const field = `query.${key}`;
    const keyProblem = stringProblem(key);
    if (keyProblem) return { field, message: `keys ${keyProblem}` };
    const problem = inspectInput(queryValue(value), field);
    if (problem) return problem;
  }
  return undefined;
};

/** Express middleware, after the JSON parser and before every route. */
export const inputPolicy: RequestHandler = (req, _res, next) => {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  const problem = pathProblem(at < 0 ? url : url.slice(0, at)) ?? queryProblem(url) ?? inspectInput(req.body, 'body');
  next(problem ? validationFailed([problem]) : undefined);
};
