import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventStore } from './event-store/event-store.port.js';

export type ProjectionReading = Readonly<{
  projection: string;
  /** The checkpoint's event sequence (PostgreSQL: the global position of the last applied event). */
  position: number;
  lagEvents: number;
  lagSeconds: number;
  rebuilding: boolean;
}>;

export type MetricsLogger = Readonly<{ warn(obj: object, msg?: string): void }>;

export type Metrics = Readonly<{
  registry: Registry;
  eventsAppended: Counter<'type'>;
  commandDuration: Histogram<'command' | 'outcome'>;
  /** Times `run` as command `name`: outcome `ok`, `rejected` (an fp-ts Left) or `error` (thrown). */
  timeCommand<T>(name: string, run: () => Promise<T>): Promise<T>;
  watchProjections(read: () => Promise<readonly ProjectionReading[]>): void;
  setSocketCount(read: () => number): void;
  /** Counts one throttled socket message (the address is not a label: unbounded, and personal). */
  onThrottled(address?: string): void;
  render(): Promise<string>;
  contentType: string;
}>;

export type MetricsOptions = Readonly<{
  defaultMetrics?: boolean;
  logger?: MetricsLogger;
}>;

/** Command latencies: a command appends synchronously (one WAL flush), so most land in the first buckets. */
const COMMAND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const outcomeOf = (result: unknown): 'ok' | 'rejected' =>
  typeof result === 'object' && result !== null && (result as { _tag?: unknown })._tag === 'Left' ? 'rejected' : 'ok';

export const createMetrics = (options: MetricsOptions = {}): Metrics => {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const eventsAppended = new Counter({
    name: 'ledger_events_appended_total',
    help: 'Events appended to the event store by this process, by event type.',
    labelNames: ['type'] as const,
    registers,
  });
  const commandDuration = new Histogram({
    name: 'ledger_command_duration_seconds',
    help: 'Duration of ledger commands, by command and outcome (ok, rejected, error).',
    labelNames: ['command', 'outcome'] as const,
    buckets: COMMAND_BUCKETS,
    registers,
  });
  const throttled = new Counter({
    name: 'ws_throttled_messages_total',
    help: 'Socket messages refused by the gateway throttle.',
    registers,
  });

  const socketSources: (() => number)[] = [];
  new Gauge({
    name: 'ws_sockets_connected',
    help: "Sockets connected to this process's gateway.",
    registers,
    collect() {
      this.set(socketSources.reduce((sum, read) => sum + read(), 0));
    },
  });

  // The registry collects every gauge of a scrape at once: the projection gauges share the reading in flight.
  let readProjections: (() => Promise<readonly ProjectionReading[]>) | undefined;
  let inFlight: Promise<readonly ProjectionReading[]> | undefined;
  const projectionReadings = (): Promise<readonly ProjectionReading[]> => {
    if (!readProjections) return Promise.resolve([]);
    inFlight ??= readProjections()
      .catch((error: unknown) => {
        options.logger?.warn({ err: error }, 'metrics: reading projection status failed');
        return [];
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  const projectionGauge = (name: string, help: string, pick: (r: ProjectionReading) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['projection'] as const,
      registers,
      async collect() {
        const readings = await projectionReadings();
        this.reset(); // a failed reading shows no value rather than a stale one
        for (const r of readings) this.set({ projection: r.projection }, pick(r));
      },
    });
  };
  projectionGauge('projection_position', 'Checkpoint of each projection (global position of its last applied event).', (r) => r.position);
  projectionGauge('projection_lag_events', 'Events stored but not yet applied by each projection (capped).', (r) => r.lagEvents);
  projectionGauge(
    'projection_lag_seconds',
    'Age of the oldest event each projection has not applied yet (0 when caught up).',
    (r) => r.lagSeconds,
  );
  projectionGauge('projection_rebuild_in_progress', '1 while a blue/green rebuild of the projection is running.', (r) =>
    r.rebuilding ? 1 : 0,
  );

  return {
    registry,
    eventsAppended,
    commandDuration,
    timeCommand: async (name, run) => {
      const end = commandDuration.startTimer({ command: name });
      try {
        const result = await run();
        end({ outcome: outcomeOf(result) });
        return result;
      } catch (error) {
        end({ outcome: 'error' });
        throw error;
      }
    },
    watchProjections: (read) => {
      readProjections = read;
    },
    setSocketCount: (read) => {
      socketSources.push(read);
    },
    onThrottled: () => throttled.inc(),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
};

export const instrumentStore = (store: EventStore, metrics: Metrics): EventStore => {
  const count = (events: readonly { type: string }[]): void => {
    for (const e of events) metrics.eventsAppended.inc({ type: e.type });
  };
  const append: EventStore['append'] = async (request) => {
    const result = await store.append(request);
    if (!result.idempotent) count(request.events);
    return result;
  };
  const appendMany: EventStore['appendMany'] = async (requests) => {
    const outcomes = await store.appendMany(requests);
    outcomes.forEach((o, i) => {
      if (!(o instanceof Error) && !o.idempotent) count(requests[i]!.events);
    });
    return outcomes;
  };
  // A proxy, not a copy: every other member goes to the store itself, bound, so class instances keep their `this`.
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      if (property === 'appendMany') return appendMany;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
};
