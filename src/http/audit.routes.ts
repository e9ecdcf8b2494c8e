import { Router } from 'express';
import type { BackOfficeDeps } from './back-office.deps.js';

/** Point-in-time balances for admins: GET /accounting/balances (issue 7). */
export const auditRoutes = (_deps: BackOfficeDeps): Router => Router();
