/** One stream per erased person: its single event is the erasure's audit record (expected no_stream: once). */
export const erasureStream = (userId: number): string => `erasure-${userId}`;

export type PersonErased = Readonly<{
  type: 'PersonErased';
  data: Readonly<{
    userId: number;
    /** Why: a data-subject request's reference, or for a forced erasure the reason the retention rule is overridden. */
    reason: string;
    forced: boolean;
    lastActivity: string | null;
    retainedUntil: string | null;
    adminUserId: number;
    at: string;
  }>;
}>;
