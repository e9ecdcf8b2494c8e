import type { IncomingHttpHeaders } from 'node:http';
import type { RouteDocs } from './access.js';

/** What a route reads of a request: node's own headers, the path's parameters, the parsed JSON body. */
export type InternalInput = Readonly<{ headers: IncomingHttpHeaders; params: unknown; body: unknown }>;
export type InternalAnswer = Readonly<{ status: number; body: unknown }>;
/** `docs`: its operation in the internal API's OpenAPI document (GET /internal/openapi.json). */
export type InternalRoute = Readonly<{
  method: 'post' | 'get';
  path: string;
  docs: RouteDocs;
  handle: (input: InternalInput) => Promise<InternalAnswer>;
}>;

export const ok = (body: unknown): InternalAnswer => ({ status: 200, body });
export const made = (created: boolean, body: unknown): InternalAnswer => ({ status: created ? 201 : 200, body });
