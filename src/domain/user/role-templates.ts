import type { Permission } from './permissions.js';

/**
 * Starting sets of permissions for a new admin, by job (docs/console.md, "New admin"). A template is a suggestion the
 * creating SuperAdmin edits before applying: what is granted is the list sent, each grant audited on its own. Every name is
 * an existing permission (the type checks it); none of these sets includes a SuperAdmin-only action.
 */
export const ROLE_TEMPLATES = {
  support: {
    label: 'Support',
    purpose: 'answers players: finds them, reads their bets, deposits and withdrawals, sets limits they ask for',
    permissions: [
      'user.view',
      'user.bets.view',
      'user.transactions.view',
      'deposits.view',
      'withdrawals.view',
      'user-limit.view',
      'user-limit.edit',
      'user-note.view',
      'user-note.edit',
      'admin-tips.view',
    ],
  },
  finance: {
    label: 'Finance',
    purpose: 'moves money out: decides withdrawals, reads balances, the ledger and the periods',
    permissions: [
      'user.view',
      'deposits.view',
      'withdrawals.view',
      'withdrawals.approve',
      'withdrawals.reject',
      'withdrawals.retry',
      'balance.view',
      'transaction.view',
      'admin-tips.view',
      'dashboard.view',
    ],
  },
  risk: {
    label: 'Risk',
    purpose: 'stops abuse: bans, blocks withdrawals, reads KYC, limits and the admin audit log',
    permissions: [
      'user.view',
      'user.ban',
      'user.bets.view',
      'user.transactions.view',
      'withdrawals.view',
      'withdrawals.block',
      'withdrawals.reject',
      'kyc.view',
      'user-limit.view',
      'user-limit.edit',
      'registration-info.view',
      'admin-users.view-admin-audit',
    ],
  },
  content: {
    label: 'Content',
    purpose: 'keeps the words and the community of the site: FAQ, leaderboards, chat moderation',
    permissions: ['faq.edit', 'leaderboard.view', 'leaderboard.edit', 'chat.admin-action', 'dashboard.view'],
  },
} as const satisfies Record<string, { label: string; purpose: string; permissions: readonly Permission[] }>;

export type RoleTemplateName = keyof typeof ROLE_TEMPLATES;
