import type { Request } from 'express';
import { authError } from '../../auth/auth.errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * decisions.md, Tokens and MFA: an unsafe request carried by cookies must come from an allowed origin.
 * `Origin` decides when present; else `Sec-Fetch-Site`; a request with neither comes from no browser and passes.
 */
export const assertNotCrossSite = (req: Request, allowedOrigins: readonly string[]): void => {
  if (SAFE.has(req.method)) return;
  const origin = req.get('origin');
  if (origin !== undefined) {
    const own = `${req.protocol}://${req.get('host') ?? ''}`;
    if (origin !== own && !allowedOrigins.includes(origin)) throw authError('crossSite');
    return;
  }
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw authError('crossSite');
};
