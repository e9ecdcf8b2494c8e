import { NOTIFYING_EVENT_TYPES, notificationsOf } from '../../domain/wallet/wallet.notifications.js';
import { insertRows, type Projection, type Row } from '../../projections/projection.js';

/** `notifications`: one row per notification (read marks live in notification_reads, which a rebuild keeps). */
export const notificationsProjection: Projection = {
  name: 'notifications',
  version: 1,
  handles: NOTIFYING_EVENT_TYPES,
  tables: ['notifications'],
  project(events) {
    const rows: Row[] = events.flatMap(notificationsOf).map((n) => {
      const [commit, prepare] = n.position.split('/');
      return {
        id: n.id,
        user_id: n.userId,
        type: n.type,
        payload: n.payload,
        position: n.position,
        position_commit: commit,
        position_prepare: prepare,
        created_at: n.createdAt,
      };
    });
    return insertRows('notifications', rows, 'ON CONFLICT (id) DO NOTHING');
  },
};
