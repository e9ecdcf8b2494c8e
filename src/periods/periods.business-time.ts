/** An event's business time: its `effectiveAt`, or for events recorded before business time existed, its `at`. */
export const businessAtOf = (data: Readonly<{ at: string }>): string => (data as { effectiveAt?: string }).effectiveAt ?? data.at;
