import type { RequestHandler } from 'express';
import type { ErrorDetail } from './http-errors.js';
import { inspectInput, stringProblem } from '../shared/input-policy.js';
import { validationFailed } from '../commands/errors.js';

/** Values PostgreSQL cannot store, or that only exhaust the process, are refused before any route, naming the field. */

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
