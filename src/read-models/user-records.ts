import { isUserEventType, userStreamUserId, type UserEvent } from '../domain/user/user.events.js';
import { streamRecords, type StreamRecord } from '../projections/projection.js';

export type UserRecord = StreamRecord<UserEvent>;

/** The user events of a batch, in order, narrowed to `handles`. */
export const userRecords = streamRecords<UserEvent>(userStreamUserId, isUserEventType);
