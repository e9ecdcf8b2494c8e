import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import {
  amlStream,
  decideAml,
  evolveAml,
  initialAmlState,
  type AmlCommand,
  type AmlError,
  type AmlEvent,
  type AmlFlag,
  type AmlFlagKind,
  type AmlMeta,
  type AmlState,
} from '../domain/aml/aml.js';
import type { Minor } from '../domain/money/money.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { createStreamHandler } from '../commands/stream.handler.js';
import type { Users } from '../commands/users.js';
import { kycLevelNumber } from '../domain/user/kyc.js';
import type { AmlHooks } from '../commands/wallet-kit.js';
import { usdText, type AmlSettings } from './aml.settings.js';

export type AmlFlagRow = AmlFlag & Readonly<{ userId: number }>;

/** The AML flags' command side: raise (the ledger), assign and clear (the back office), and the table every answer reads. */
export const createAml = (deps: Readonly<{ store: EventStore; pool: pg.Pool; settings: AmlSettings; clock?: () => Date }>) => {
  const clock = deps.clock ?? (() => new Date());
  const handler = createStreamHandler<AmlState, AmlEvent, AmlCommand, AmlMeta, AmlError>(deps.store, {
    streamOf: amlStream,
    initial: initialAmlState,
    evolve: evolveAml,
    decide: decideAml,
  });

  const run = async (userId: number, command: AmlCommand, adminUserId: number | null): Promise<Either<AmlError, AmlFlag | undefined>> => {
    const flagId = command.data.flagId;
    const handled = await handler.handle(userId, command, { now: clock(), adminUserId }, adminUserId === null ? {} : { adminUserId });
    if (isLeft(handled.decision)) return handled.decision;
    const flag = handled.state.flags[flagId];
    if (flag && handled.decision.right.length > 0) {
      await deps.pool.query(
        `INSERT INTO aml_flags (id, user_id, kind, linked_usd, threshold_usd, window_hours, withdrawal_id, status, assignee_user_id, note,
           raised_at, cleared_at, cleared_by_user_id, revision)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, assignee_user_id = EXCLUDED.assignee_user_id, note = EXCLUDED.note,
           cleared_at = EXCLUDED.cleared_at, cleared_by_user_id = EXCLUDED.cleared_by_user_id, revision = EXCLUDED.revision
           WHERE aml_flags.revision < EXCLUDED.revision`,
        [
          flag.id,
          userId,
          flag.kind,
          flag.linkedUsd,
          flag.thresholdUsd,
          flag.windowHours,
          flag.withdrawalId,
          flag.status,
          flag.assigneeUserId,
          flag.note,
          flag.raisedAt,
          flag.clearedAt,
          flag.clearedByUserId,
          handled.revision.toString(),
        ],
      );
    }
    return right(flag);
  };

  const userOf = async (flagId: string): Promise<number | undefined> => {
    const { rows } = await deps.pool.query<{ user_id: string }>('SELECT user_id FROM aml_flags WHERE id = $1', [flagId]);
    return rows[0] ? Number(rows[0].user_id) : undefined;
  };
  const onFlag = async (flagId: string, command: AmlCommand, adminUserId: number): Promise<Either<AmlError, AmlFlagRow>> => {
    const userId = await userOf(flagId);
    if (userId === undefined) return { _tag: 'Left', left: { _tag: 'AmlFlagNotFound', flagId } };
    const done = await run(userId, command, adminUserId);
    return isLeft(done) ? done : right({ ...done.right!, userId });
  };

  return {
    settings: deps.settings,
    /** Raises a flag when the linked total reached the threshold (a withdrawal-review flag always); none while one is open. */
    raise: async (userId: number, kind: AmlFlagKind, flagId: string, linkedUsd: Minor, withdrawalId: string | null): Promise<void> => {
      const data = {
        flagId,
        kind,
        linkedUsd: usdText(linkedUsd),
        thresholdUsd: usdText(deps.settings.thresholdUsd),
        windowHours: deps.settings.windowHours,
        withdrawalId,
      };
      const raised = await run(userId, { type: 'RaiseAmlFlag', data }, null);
      if (isLeft(raised)) throw new Error(`aml: ${raised.left._tag}`);
    },
    assign: (flagId: string, assigneeUserId: number, adminUserId: number) =>
      onFlag(flagId, { type: 'AssignAmlFlag', data: { flagId, assigneeUserId } }, adminUserId),
    clear: (flagId: string, note: string, adminUserId: number) =>
      onFlag(flagId, { type: 'ClearAmlFlag', data: { flagId, note } }, adminUserId),
    /** Whether an open flag holds the withdrawal for review. */
    underReview: async (withdrawalId: string): Promise<boolean> =>
      (await deps.pool.query(`SELECT 1 FROM aml_flags WHERE withdrawal_id = $1 AND status = 'OPEN'`, [withdrawalId])).rowCount! > 0,
  };
};
export type Aml = ReturnType<typeof createAml>;

/**
 * The ledger's side of the flags. The KYC level is read from the player's user stream (exact: the level an admin set
 * last, never a projection behind it); a player without a record is LEVEL_0 (docs/compliance.md).
 */
export const amlHooks = (aml: Aml, users: Pick<Users, 'load'>): AmlHooks => ({
  settings: aml.settings,
  belowKyc: async (userId) => {
    if (aml.settings.requiredKycLevel === 0) return false;
    const user = await users.load(userId);
    return kycLevelNumber(user.status === 'registered' ? user.kyc : null) < aml.settings.requiredKycLevel;
  },
  raise: aml.raise,
  underReview: aml.underReview,
});
