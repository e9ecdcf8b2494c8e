const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Retries `check` until it passes (returning its value), rethrowing its last failure once `timeoutMs` has passed.
 * Tests check outcomes, not speed: the bound only ends a failing test, so it is generous for a loaded machine.
 * Hand-written rather than vi.waitFor: a check in flight always finishes, and bench scripts run it outside vitest.
 */
export const eventually = async <T>(check: () => T | Promise<T>, timeoutMs = 20_000, intervalMs = 25): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await pause(intervalMs);
    }
  }
};

/** `eventually` for a yes/no condition; `what` names it in the failure. */
export const eventuallyTrue = (what: string, condition: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void> =>
  eventually(async () => {
    if (!(await condition())) throw new Error(`timed out waiting for ${what}`);
  }, timeoutMs);
