/** Refusals of leaderboard operations; each maps to a class and stable code in src/commands/errors.ts. */
export type LeaderboardError =
  | Readonly<{ _tag: 'LeaderboardNotFound'; leaderboardId: string }>
  | Readonly<{ _tag: 'ScheduleNotFound'; scheduleId: string }>
  | Readonly<{ _tag: 'LeaderboardUserNotFound'; leaderboardId: string; userId: number }>
  | Readonly<{ _tag: 'LeaderboardNotSettled'; leaderboardId: string; status: string }>
  | Readonly<{ _tag: 'LeaderboardUserNotWinner'; leaderboardId: string; userId: number }>
  | Readonly<{ _tag: 'PrizeAlreadyReceived'; leaderboardId: string; userId: number }>
  | Readonly<{ _tag: 'PrizeExceedsRemaining'; remainingUsdPrize: string; usdAmount: string }>
  | Readonly<{ _tag: 'PrizeInvalid'; field: string; message: string }>
  | Readonly<{ _tag: 'PrizeIdempotencyConflict' }>;

export const leaderboardMessage = (e: LeaderboardError): string => {
  switch (e._tag) {
    case 'LeaderboardNotFound':
      return `Leaderboard ${e.leaderboardId} not found`;
    case 'ScheduleNotFound':
      return `Leaderboard schedule ${e.scheduleId} not found`;
    case 'LeaderboardUserNotFound':
      return `User ${e.userId} is not on leaderboard ${e.leaderboardId}`;
    case 'LeaderboardNotSettled':
      return `Prizes of leaderboard ${e.leaderboardId} cannot be given in status ${e.status}`;
    case 'LeaderboardUserNotWinner':
      return `User ${e.userId} did not win a prize on leaderboard ${e.leaderboardId}`;
    case 'PrizeAlreadyReceived':
      return `User ${e.userId} already received the whole prize of leaderboard ${e.leaderboardId}`;
    case 'PrizeExceedsRemaining':
      return `${e.usdAmount} USD exceeds the remaining prize of ${e.remainingUsdPrize} USD`;
    case 'PrizeInvalid':
      return e.message;
    case 'PrizeIdempotencyConflict':
      return 'The Idempotency-Key was used for a different prize payment';
  }
};
