import { useCallback } from 'react';

/** After a command: refetch now, then a few times while the projections catch up (a command's answer is live, its lists are not). */
export const useSettle = (refetch: () => unknown) =>
  useCallback(() => {
    void refetch();
    for (const ms of [250, 600, 1200, 2500, 5000, 10000]) setTimeout(() => void refetch(), ms);
  }, [refetch]);
