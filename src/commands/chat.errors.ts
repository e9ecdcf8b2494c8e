import { AppError, type ErrorClass } from '../shared/app-error.js';
import type { ChatError } from './chat.js';

export const CHAT_ERRORS = {
  ChatRoomNotFound: ['not-found', 'CHAT_ROOM_NOT_FOUND'],
  ChatMessageNotFound: ['not-found', 'CHAT_MESSAGE_NOT_FOUND'],
  ChatMessageAlreadyDeleted: ['conflict', 'CHAT_MESSAGE_ALREADY_DELETED'],
  ChatUserNotFound: ['not-found', 'USER_NOT_FOUND'],
  ChatUserBanned: ['forbidden', 'USER_BANNED'],
  ChatDisabled: ['forbidden', 'CHAT_DISABLED'],
  ChatUsernameRequired: ['forbidden', 'USERNAME_REQUIRED'],
  ChatRateLimited: ['rate-limited', 'CHAT_RATE_LIMITED'],
} as const satisfies Record<ChatError['_tag'], readonly [ErrorClass, string]>;

const chatMessage = (e: ChatError): string => {
  switch (e._tag) {
    case 'ChatRoomNotFound':
      return `Chat room ${e.roomId} not found`;
    case 'ChatMessageNotFound':
      return `Chat message ${e.messageId} not found`;
    case 'ChatMessageAlreadyDeleted':
      return `Chat message ${e.messageId} is already deleted`;
    case 'ChatUserNotFound':
      return `User ${e.userId} not found`;
    case 'ChatUserBanned':
      return 'The account is banned';
    case 'ChatDisabled':
      return 'Chat is disabled for this account';
    case 'ChatUsernameRequired':
      return 'Set a username before chatting';
    case 'ChatRateLimited':
      return `At most ${e.messagesPerMinute} messages per minute in room ${e.roomId}; try again in ${e.retryAfterSeconds} s`;
  }
};

/** No Retry-After: the message names the wait. */
export const chatError = (e: ChatError): AppError => new AppError(CHAT_ERRORS[e._tag][0], CHAT_ERRORS[e._tag][1], chatMessage(e));
