import { useCallback } from 'react';

/**
 * After a command: refetch now, then a few times while the read side catches up (the lists are projections; a command's
 * answer is live). With a read-your-writes position header from the API one refetch would do; without it this settles
 * within the projector's lag (normally well under a second).
 */
export const useSettle = (refetch: () => unknown) =>
  useCallback(() => {
    void refetch();
    for (const ms of [250, 600, 1200, 2500, 5000, 10000]) setTimeout(() => void refetch(), ms);
  }, [refetch]);
