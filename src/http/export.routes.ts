import { Router } from 'express';
import type { BackOfficeDeps } from './back-office.deps.js';

/** Streamed compliance exports for admins (issue 7). */
export const exportRoutes = (_deps: BackOfficeDeps): Router => Router();
