import { DeadlineExceededError, NotLeaderError, StreamNotFoundError, UnavailableError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/infra/config.js';
import { StoreUnavailable } from '../../src/infra/event-store/event-store.port.js';
import { connectionStringProblem } from '../../src/infra/event-store/kurrentdb.connection-string.js';
import { createKurrentDbEventStore } from '../../src/infra/event-store/kurrentdb.event-store.js';
import { answerOutcome, AttemptTimedOut, classifyAppendFailure, withinDeadline } from '../../src/infra/event-store/kurrentdb.failures.js';

// What the client builds from a gRPC status (the shape of @grpc/grpc-js's ServiceError).
const grpcError = (code: number, metadata: Record<string, string> = {}) =>
  Object.assign(new Error('grpc'), { code, details: 'grpc', metadata: { getMap: () => metadata } }) as never;

describe('KurrentDB adapter: failures of an append', () => {
  it('when the client reports a leader change, a node not ready, or a deadline, then the append is retried', () => {
    expect(
      classifyAppendFailure(new NotLeaderError(grpcError(5, { 'leader-endpoint-host': '127.0.0.1', 'leader-endpoint-port': '2123' }))),
    ).toBe('retry');
    expect(classifyAppendFailure(new UnavailableError(grpcError(14)))).toBe('retry');
    expect(classifyAppendFailure(new DeadlineExceededError(grpcError(4)))).toBe('retry');
    expect(classifyAppendFailure(new AttemptTimedOut('no answer'))).toBe('retry');
  });

  it('when the client found no node at all, then the append fails at once as unavailable; other errors are thrown as they are', () => {
    expect(classifyAppendFailure(new Error('Failed to discover after 10 attempts.'))).toBe('unavailable');
    expect(classifyAppendFailure(new TypeError('bad'))).toBe('fail');
    expect(classifyAppendFailure(new StreamNotFoundError(grpcError(5), 'wallet-1'))).toBe('fail');
  });

  it('when no node answers past the retry window, then the append fails with StoreUnavailable (503) within the bound', async () => {
    const store = createKurrentDbEventStore({
      connectionString: 'kurrentdb://127.0.0.1:1,127.0.0.1:2?tls=false&maxDiscoverAttempts=1000',
      appendRetryWindowMs: 400,
      attemptDeadlineMs: 100,
    });
    const started = Date.now();
    const failure = await store
      .append({ streamId: 's', events: [{ id: '0190a0a0-0000-7000-8000-000000000001', type: 'T', data: {} }], expectedRevision: 'any' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const took = Date.now() - started;
    await store.close();
    expect(failure).toBeInstanceOf(StoreUnavailable);
    expect(failure).toMatchObject({ statusCode: 503, code: 'EVENT_STORE_UNAVAILABLE' });
    expect(took).toBeLessThan(5_000); // bounded by the window, not by the client's thousand discovery attempts
  });

  it('when an attempt outlives its deadline, then it ends with AttemptTimedOut', async () => {
    await expect(withinDeadline(new Promise(() => undefined), 10)).rejects.toBeInstanceOf(AttemptTimedOut);
    await expect(withinDeadline(Promise.resolve(7), 1000)).resolves.toBe(7);
  });
});

describe('KurrentDB adapter: a position-bearing answer', () => {
  const request = {
    streamId: 'wallet-1',
    expectedRevision: 'no_stream' as const,
    events: [{ id: '0190a0a0-0000-7000-8000-000000000002', type: 'T', data: {} }],
  };
  const answer = { success: true, nextExpectedRevision: 0n, position: { commit: 900n, prepare: 900n } };

  it("when the stream already held the events and the server answers with the first write's position, then it is idempotent with that position", () => {
    expect(answerOutcome(request, answer, true)).toEqual({
      streamId: 'wallet-1',
      nextExpectedRevision: 0n,
      position: { commit: 900n, prepare: 900n },
      idempotent: true,
    });
  });

  it('when the stream did not hold them, then the same answer is a fresh write', () => {
    expect(answerOutcome(request, answer, false)).toMatchObject({ idempotent: false, position: { commit: 900n, prepare: 900n } });
  });
});

describe('KurrentDB connection strings', () => {
  it("when the string names several gossip seeds, or uses discovery, then the client's parser accepts it and so does the config", () => {
    const seeds = 'kurrentdb://127.0.0.1:2113,127.0.0.1:2123,127.0.0.1:2133?tls=false';
    expect(connectionStringProblem(seeds)).toBeUndefined();
    expect(connectionStringProblem('kurrentdb+discover://admin:changeit@cluster.local:2113?nodePreference=leader')).toBeUndefined();
    expect(connectionStringProblem('esdb://kurrent:2113?tls=false')).toBeUndefined();
    expect(loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: seeds }).eventStore).toEqual({
      kind: 'eventstoredb',
      connectionString: seeds,
    });
  });

  it('when the client refuses the string, then the problem is named without repeating it', () => {
    const problem = connectionStringProblem('https://admin:s3cret@node:2113');
    expect(problem).toMatch(/refuses it/);
    expect(problem).not.toContain('s3cret');
    expect(() => loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: 'kurrentdb://' })).toThrow(
      /EVENTSTORE_CONNECTION_STRING/,
    );
  });
});
