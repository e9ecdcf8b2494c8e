import { formatPosition, type RecordedEvent } from '../../infra/event-store/event-store.port.js';
import type { EventAction } from '../../shared/admin-actions.js';
import { insertRows, type Projection, type Row } from '../../projections/projection.js';

/** Whose stream an event is in: `wallet-7`, `user-7`, `limits-7`, `api-keys-7`, `erasure-7`, `aml-7` are user 7's; `config-*` nobody's. */
const STREAM = /^(wallet|user|limits|api-keys|erasure|aml)-(\d+)$/;

/** Per stream kind, the event types that record an acting admin, and the action each one is. */
type StreamKind = 'wallet' | 'user' | 'limits' | 'api-keys' | 'erasure' | 'aml' | 'config' | 'periods';
const ACTIONS: Readonly<Record<StreamKind, Readonly<Record<string, EventAction>>>> = {
  wallet: {
    AdminTipCredited: 'tip',
    AdminTipDeducted: 'deduct-balance',
    BalanceSet: 'set-balance',
    LeaderboardPrizeCredited: 'leaderboard.give-prize',
    WithdrawalApproved: 'withdrawal.approve',
    WithdrawalRejected: 'withdrawal.reject',
    WithdrawalRetried: 'withdrawal.retry',
    DepositReleased: 'deposit.release',
    DepositReturned: 'deposit.return',
  },
  user: {
    UserRegistered: 'user.create',
    UsernameSet: 'user.set-username',
    ProfileUpdated: 'user.update-profile',
    UserBanned: 'user.ban',
    UserUnbanned: 'user.unban',
    MfaDisabled: 'user.disable-mfa',
    KycLevelSet: 'user.set-kyc-level',
    RoleGranted: 'role.add',
    RoleRevoked: 'role.remove',
    PermissionGranted: 'permission.add',
    PermissionRevoked: 'permission.remove',
  },
  limits: {
    SelfExclusionSet: 'limits.set-self-exclusion',
    SelfExclusionLifted: 'limits.lift-self-exclusion',
    BetLimitSet: 'limits.set-bet-limit',
    GamblingLimitSet: 'limits.set-gambling-limit',
  },
  erasure: { PersonErased: 'user.erase' },
  aml: { AmlFlagAssigned: 'aml.assign-flag', AmlFlagCleared: 'aml.clear-flag' },
  'api-keys': { ApiKeyIssued: 'api-key.issue', ApiKeysRevoked: 'api-key.revoke', SessionsEnded: 'user.sign-out' },
  config: { SiteConfigChanged: 'config.update' },
  periods: { PeriodClosed: 'period.close' },
};

const HANDLES: readonly string[] = [...new Set(Object.values(ACTIONS).flatMap((byType) => Object.keys(byType)))];

/** The event's own fields minus what the row already says (who, when) and the ledger legs (the transactions export has them). */
const OMITTED = new Set(['adminUserId', 'at', 'postings']);
const detailsOf = (data: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(data).filter(([key]) => !OMITTED.has(key)));

/** The audit row of an event, or undefined when no admin acted (a user's own change, a sign-up). */
export const adminAuditRow = (e: RecordedEvent): Row | undefined => {
  const owned = STREAM.exec(e.streamId);
  const kind = owned
    ? (owned[1] as keyof typeof ACTIONS)
    : e.streamId.startsWith('config-')
      ? 'config'
      : e.streamId === 'ledger-periods'
        ? 'periods'
        : undefined;
  const action = kind && Object.hasOwn(ACTIONS[kind], e.type) ? ACTIONS[kind][e.type] : undefined;
  const admin = e.data.adminUserId;
  if (!action || typeof admin !== 'number') return undefined;
  return {
    id: e.id,
    admin_user_id: admin,
    action,
    target_user_id: owned ? Number(owned[2]) : null,
    details: detailsOf(e.data),
    event_type: e.type,
    stream_id: e.streamId,
    position: formatPosition(e.position),
    position_commit: String(e.position.commit),
    position_prepare: String(e.position.prepare),
    created_at: typeof e.data.at === 'string' ? e.data.at : e.createdAt.toISOString(),
  };
};

/** The admin audit log: one row, keyed by the event's id, per event that records an acting admin (`data.adminUserId`). */
export const adminAuditProjection: Projection = {
  name: 'admin-audit',
  version: 1,
  handles: HANDLES,
  tables: ['admin_audit'],
  project(events) {
    const rows: Row[] = [];
    for (const e of events) {
      const row = adminAuditRow(e);
      if (row) rows.push(row);
    }
    return insertRows('admin_audit', rows);
  },
};
