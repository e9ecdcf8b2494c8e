import type { Subscription, SubscriptionOptions } from './event-store.port.js';

/** The loop `run` as a subscription: aborted by stop or the caller's signal; a failure reaches onError, then `done`. */
export const runSubscription = (
  options: Pick<SubscriptionOptions, 'signal' | 'onError'>,
  run: (abort: AbortSignal) => Promise<void>,
  // An onError that throws must not hide the failure: it is only reported here.
  onErrorThrew: (error: unknown) => void = () => undefined,
): Subscription => {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const done = run(controller.signal)
    .finally(() => options.signal?.removeEventListener('abort', onOuterAbort))
    .catch((error: unknown) => {
      try {
        options.onError?.(error);
      } catch (callbackError) {
        onErrorThrew(callbackError);
      }
      throw error;
    });
  // Whoever does not await `done` must not get an unhandled rejection that kills the process.
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
};
