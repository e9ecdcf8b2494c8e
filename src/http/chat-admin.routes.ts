import { Router } from 'express';
import { authOf } from '../auth/authenticator.js';
import { recordChatAdminAction, type ChatAdminAction } from '../commands/content.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { CHAT_ACTION_ARGS, ChatAdminActionBody } from './content.schemas.js';
import { parseBody } from './validate.js';
import { z } from './validate.js';
import { UntypedObject } from './openapi.schemas.js';

/** The whole body again, with `args` narrowed by `action`, so that a bad argument is reported as body.args.<field>. */
const ChatAdminActionCommand = z.discriminatedUnion('action', [
  z.object({ action: z.literal('delete_message'), args: CHAT_ACTION_ARGS.delete_message }),
  z.object({ action: z.literal('set_rate_limit'), args: CHAT_ACTION_ARGS.set_rate_limit }),
]);

/** Chat moderation: recorded for the realtime gateway to apply (nothing is published yet). */
export const chatAdminRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  route('post', '/chat/admin-action', { kind: 'perm', permission: 'chat.admin-action' }, {
    summary: 'A chat admin action', request: { body: ChatAdminActionBody },
    responses: { 201: { description: 'The recorded action', schema: UntypedObject } },
  }, async (req, res) => {
    parseBody(ChatAdminActionBody, req);
    const command: ChatAdminAction = parseBody(ChatAdminActionCommand, req);
    res.status(201).json(await recordChatAdminAction(deps.pool, command, authOf(req).userId));
  });
  return router;
};
