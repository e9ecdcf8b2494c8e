import { afterAll, afterEach } from 'vitest';
import { installConformanceRecorder, takeViolations, type Violation } from './openapi-conformance.js';

/**
 * Every test's HTTP traffic validated against the OpenAPI documents (openapi-conformance.ts): a test whose requests got an
 * undeclared status, a body unlike its schema or an answer from an undocumented route fails, naming them.
 * OPENAPI_CONFORMANCE=off turns it off (to look at a failure without it).
 */
const enabled = process.env.OPENAPI_CONFORMANCE !== 'off';

const fail = (violations: readonly Violation[]): void => {
  if (violations.length === 0) return;
  const lines = violations.slice(0, 20).map((v) => `${v.kind}: ${v.request}: ${v.detail}`);
  throw new Error(`OpenAPI conformance: ${violations.length} violation(s)\n${lines.join('\n')}`);
};

if (enabled) {
  installConformanceRecorder();
  afterEach(async () => fail((await takeViolations()).violations));
  afterAll(async () => fail((await takeViolations()).violations));
}
