import { z } from '../../shared/zod.js';

export const ChatAdminActionBody = z
  .object({ action: z.enum(['delete_message', 'set_rate_limit']), args: z.record(z.string(), z.unknown()) })
  .openapi('ChatAdminActionBody');
export const CHAT_ACTION_ARGS = {
  delete_message: z.strictObject({ messageId: z.string().trim().min(1).max(128) }),
  set_rate_limit: z.strictObject({ roomId: z.string().trim().min(1).max(128), messagesPerMinute: z.int().min(1).max(600) }),
} as const;
