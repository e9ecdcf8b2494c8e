/** Shared across gateway processes through Redis when given one; in-process otherwise. docs/realtime.md ("Protection"). */
export type { ConnectionLimiter, MessageThrottle, ProtectionSettings, ThrottleVerdict } from './types.js';
export { DEFAULT_CONNECTION_SLOT_TTL_MS, DEFAULT_KEY_PREFIX } from './types.js';
export { createMessageThrottle } from './throttle.js';
export { createConnectionLimiter } from './connections.js';
export { clientAddress, normalizeAddress, validateTrustProxy } from './address.js';
export { canonicalOrigin, originAllowed } from './origin.js';
