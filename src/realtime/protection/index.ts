/** The gateway's protection: a true sliding-window message throttle per client address with a block after it, a
 * parallel-connection limit per address checked before the socket exists, the Origin check of the websocket upgrade, and the client
 * address itself. Shared across gateway processes through Redis when given one; in-process otherwise. docs/realtime.md ("Protection"). */
export type { ConnectionLimiter, MessageThrottle, ProtectionSettings, ThrottleVerdict } from './types.js';
export { DEFAULT_CONNECTION_SLOT_TTL_MS, DEFAULT_KEY_PREFIX } from './types.js';
export { createMessageThrottle } from './throttle.js';
export { createConnectionLimiter } from './connections.js';
export { clientAddress, normalizeAddress, validateTrustProxy } from './address.js';
export { canonicalOrigin, originAllowed } from './origin.js';
