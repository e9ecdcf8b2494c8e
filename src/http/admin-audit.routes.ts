import { Router } from 'express';
import type { BackOfficeDeps } from './back-office.deps.js';

/** The admin audit log: GET /admin-audit (issue 7). */
export const adminAuditRoutes = (_deps: BackOfficeDeps): Router => Router();
