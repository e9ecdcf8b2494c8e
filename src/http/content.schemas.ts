import { CONFIG_CODES } from '../domain/site-config/site-config.sections.js';
import { z } from './validate.js';

const id = z.number().int().positive().max(2_147_483_647);

export const FaqCreateBody = z
  .object({ title: z.string().trim().min(1).max(200), text: z.string().trim().min(1).max(10_000) })
  .openapi('FaqCreateBody');
export const FaqUpdateBody = z
  .object({
    id,
    title: z.string().trim().min(1).max(200).optional(),
    text: z.string().trim().min(1).max(10_000).optional(),
    order: z.number().int().min(1).max(2_147_483_647).optional(),
  })
  .openapi('FaqUpdateBody');
export const FaqDeleteBody = z.object({ id }).openapi('FaqDeleteBody');

/** The section code comes from the query string: the spec declares `code` as a parameter although the path has no placeholder. */
export const ConfigQuery = z.object({ code: z.enum(CONFIG_CODES) });
/** The spec requires both as objects; `code` carries no meaning beyond being recorded in the event. */
export const ConfigEnvelope = z
  .object({ code: z.record(z.string(), z.unknown()), config: z.record(z.string(), z.unknown()) })
  .openapi('SiteConfigBody');

export const ChatAdminActionBody = z
  .object({ action: z.enum(['delete_message', 'set_rate_limit']), args: z.record(z.string(), z.unknown()) })
  .openapi('ChatAdminActionBody');
export const CHAT_ACTION_ARGS = {
  delete_message: z.strictObject({ messageId: z.string().trim().min(1).max(128) }),
  set_rate_limit: z.strictObject({ roomId: z.string().trim().min(1).max(128), messagesPerMinute: z.int().min(1).max(600) }),
} as const;
