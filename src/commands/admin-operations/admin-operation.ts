import type { z } from 'zod';
import type pg from 'pg';
import type { Users } from '../users.js';
import type { Ledger } from '../ledger.types.js';
import type { Permission } from '../../domain/user/permissions.js';

/** A back-office command shared by its REST route and its websocket event: one permission, one schema, one answer. */
export type AdminOperation<D, S extends z.ZodType, R> = Readonly<{
  permission: Permission;
  schema: S;
  run: (deps: D, input: z.output<S>, adminUserId: number) => Promise<R>;
}>;

export type AdminOperationDeps = Readonly<{ pool: pg.Pool; ledger: Ledger; auth: Readonly<{ users: Users }> }>;
