import type { RecordedEvent } from '../infra/event-store/event-store.port.js';
import { isUserEventType, userStreamUserId, type UserEvent } from '../domain/user/user.events.js';

export type UserRecord = Readonly<{ userId: number; event: UserEvent; recorded: RecordedEvent }>;

/** The user events of a batch, in order, narrowed to `handles`. */
export const userRecords = (events: readonly RecordedEvent[], handles: readonly string[]): UserRecord[] => {
  const out: UserRecord[] = [];
  for (const e of events) {
    const userId = userStreamUserId(e.streamId);
    if (userId === undefined || !isUserEventType(e.type) || !handles.includes(e.type)) continue;
    out.push({ userId, event: { type: e.type, data: e.data } as UserEvent, recorded: e });
  }
  return out;
};
