import type { z } from 'zod';
import type pg from 'pg';
import type { Users } from '../users.js';
import type { Ledger } from '../ledger.types.js';
import type { Permission } from '../../domain/user/permissions.js';

/**
 * One back-office command shared by its REST route and its private websocket event (docs/realtime.md):
 * the permission both require, the schema of the event's payload (the route's body, plus what the route
 * takes from its path or headers), and the work itself, which answers what the route answers.
 */
export type AdminOperation<D, S extends z.ZodType, R> = Readonly<{
  permission: Permission;
  schema: S;
  run: (deps: D, input: z.output<S>, adminUserId: number) => Promise<R>;
}>;

/** What the admin operations run against. */
export type AdminOperationDeps = Readonly<{ pool: pg.Pool; ledger: Ledger; auth: Readonly<{ users: Users }> }>;
