/** The permission names the API knows (src/domain/user/permissions.ts), for the grant select. */
export const PERMISSIONS = [
  'user.view', 'user.edit', 'user.ban', 'user.transactions.view', 'user.bets.view', 'geo.view', 'geo.edit', 'withdrawals.view',
  'withdrawals.block', 'withdrawals.unblock', 'withdrawals.approve', 'withdrawals.reject', 'withdrawals.retry', 'dashboard.view',
  'faq.edit', 'deposits.view', 'leaderboard.edit', 'leaderboard.view', 'leaderboard.give-prize', 'api-key.edit', 'api-key.view',
  'system.logger', 'chat.admin-action', 'user-note.edit', 'user-note.view', 'user-note.delete', 'user-limit.view', 'user-limit.edit',
  'user-limit.delete', 'casino.games.view', 'casino.games.edit', 'casino.games.commission.edit', 'rakebacks.view',
  'affiliate.levels.view', 'affiliate.users.view', 'affiliate.find-one.view', 'affiliate.find-one-stats.view', 'tip.view',
  'admin-tips.view', 'admin-tips.tip', 'admin-tips.deduct-balance', 'admin-users.view-admin-audit', 'registration-info.view',
  'transaction.view', 'affiliate.view', 'affiliate.streamer.view', 'affiliate-code.delete', 'affiliate-code.create', 'balance.view',
  'kyc.view', 'kyc.edit', 'promo.code.view', 'promo.code.edit', 'challenge.view', 'challenge.edit', 'challenge.action',
  'vip.application.action', 'vip.application.view', 'casino-bot.management', 'casino-bot.view',
] as const;

/** Currencies a request may name (REQUEST_CURRENCY_IDS); records may also show PLATFORM_TOKEN. */
export const CURRENCIES = ['DBC', 'BTC', 'ETH', 'LTC', 'TRX', 'POL', 'USDT', 'BNB', 'SOL', 'USDC', 'XRP', 'TETH'] as const;
export const ALL_CURRENCIES = [...CURRENCIES, 'PLATFORM_TOKEN'] as const;
export const choices = (ids: readonly string[]) => ids.map((id) => ({ id, name: id }));
