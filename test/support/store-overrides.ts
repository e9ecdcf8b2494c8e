import type { EventStore } from '../../src/infra/event-store/event-store.port.js';

/** The store with some members replaced (a counting read, a flag); every other member is the store's own, bound to it. */
export const withStoreOverrides = (store: EventStore, overrides: Partial<EventStore>): EventStore =>
  new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof EventStore];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
