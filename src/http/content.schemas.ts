import { CONFIG_CODES } from '../domain/site-config/site-config.sections.js';
import { z } from './validate.js';

export { ChatAdminActionBody } from '../commands/admin-operations/chat-admin-action.schemas.js';

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
