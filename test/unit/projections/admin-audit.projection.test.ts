import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../src/infra/event-store/event-store.port.js';
import { adminAuditProjection } from '../../../src/read-models/admin-audit/admin-audit.projection.js';

let seq = 0;
const event = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent => {
  seq += 1;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    streamId,
    revision: 0n,
    position: { commit: 100n, prepare: BigInt(seq) },
    type,
    data,
    metadata: {},
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
  };
};
const rowsOf = (events: RecordedEvent[]): Record<string, unknown>[] => {
  const [insert, ...rest] = adminAuditProjection.project(events.filter((e) => adminAuditProjection.handles.includes(e.type)));
  expect(rest).toEqual([]);
  return insert ? (JSON.parse(String(insert.values[0])) as Record<string, unknown>[]) : [];
};
const at = '2026-02-03T04:05:06.789Z';

describe('admin-audit projection', () => {
  it("when an admin tips, then one row: the event id, the admin, the wallet's user, the action and the event's fields without the postings", () => {
    const tip = event('wallet-7', 'AdminTipCredited', {
      transactionId: 't1',
      currencyId: 'DBC',
      amount: '1.5',
      usdAmount: '1.5',
      balanceAfter: '11.5',
      tipId: 3,
      tag: null,
      notes: 'hi',
      adminUserId: 2,
      operationKey: 'k',
      at,
      postings: [{ account: 'user:7', currencyId: 'DBC', amount: '1.5' }],
    });
    expect(rowsOf([tip])).toEqual([
      {
        id: tip.id,
        admin_user_id: 2,
        action: 'tip',
        target_user_id: 7,
        event_type: 'AdminTipCredited',
        stream_id: 'wallet-7',
        details: {
          transactionId: 't1',
          currencyId: 'DBC',
          amount: '1.5',
          usdAmount: '1.5',
          balanceAfter: '11.5',
          tipId: 3,
          tag: null,
          notes: 'hi',
          operationKey: 'k',
        },
        position: `100/${seq}`,
        position_commit: '100',
        position_prepare: String(seq),
        created_at: at,
      },
    ]);
  });

  it('when users act on themselves or nobody acts as an admin, then no row', () => {
    expect(
      rowsOf([
        event('user-7', 'UserRegistered', { userId: 7, adminUserId: null, at }),
        event('user-7', 'ProfileUpdated', { changes: { avatar: 'x' }, adminUserId: null, at }),
        event('user-7', 'MfaEnabled', { at }),
        event('wallet-7', 'DepositCompleted', { depositId: 'd', at }),
        event('wallet-7', 'WithdrawalRequested', { withdrawalId: 'w', at }),
        // An event type of another stream kind under an unexpected stream is not guessed at.
        event('chat-1', 'UserBanned', { reason: 'x', adminUserId: 2, at }),
      ]),
    ).toEqual([]);
  });

  it('when admins act on users, limits, API keys and the site configuration, then each gets its action and target', () => {
    const rows = rowsOf([
      event('user-7', 'UserBanned', { reason: 'abuse', adminUserId: 2, at }),
      event('user-7', 'PermissionRevoked', { permission: 'user.view', adminUserId: 2, at }),
      event('user-8', 'UserRegistered', { userId: 8, username: 'adm', adminUserId: 1, at }),
      event('limits-7', 'BetLimitSet', { limitId: 1, betLimit: '10', adminUserId: 3, at }),
      event('api-keys-7', 'ApiKeysRevoked', { apiKeyIds: ['k'], adminUserId: 3, at }),
      event('config-COMMON', 'SiteConfigChanged', { code: 'COMMON', config: { maintenanceMode: true }, request: {}, adminUserId: 1, at }),
      event('wallet-9', 'WithdrawalApproved', { withdrawalId: 'w', adminUserId: 2, at }),
    ]);
    expect(rows.map((r) => [r.action, r.admin_user_id, r.target_user_id])).toEqual([
      ['user.ban', 2, 7],
      ['permission.remove', 2, 7],
      ['user.create', 1, 8],
      ['limits.set-bet-limit', 3, 7],
      ['api-key.revoke', 3, 7],
      ['config.update', 1, null],
      ['withdrawal.approve', 2, 9],
    ]);
    expect(rows[5]?.details).toEqual({ code: 'COMMON', config: { maintenanceMode: true }, request: {} });
  });
});
