/** Expected rejections of limit commands: values, mapped to an AppError once in src/commands/errors.ts. */
export type LimitsError =
  | Readonly<{ _tag: 'ExclusionNotInFuture'; excludeUntil: string }>
  | Readonly<{ _tag: 'NoActiveExclusion'; userId: number }>
  /** Shortening an active exclusion is lifting it, which needs its own permission (DELETE). */
  | Readonly<{ _tag: 'ExclusionWouldShorten'; userId: number; expiresAt: string }>;
