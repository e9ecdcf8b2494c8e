import type { AppendRequest, EventStore, RecordedEvent } from '../infra/event-store/event-store.port.js';
import { userStreamUserId } from '../domain/user/user.events.js';
import { decryptPersonal, encryptPersonal, type PersonKeys } from './person-keys.js';
import { fieldsOf, PERSONAL } from './personal-fields.js';

const contextOf = (streamId: string, eventId: string): string => `${streamId}|${eventId.toLowerCase()}`;

const isSealed = (e: RecordedEvent): boolean => typeof e.data[PERSONAL] === 'string' && fieldsOf(e.type) !== undefined;

/**
 * The event store as the application sees it: user events are appended with their personal fields encrypted under the
 * person's key and read back decrypted; once the key is gone (erased) they read as erased. The sealer and the verifier
 * use the store itself: seals cover what is stored (the ciphertext), so deleting a key never breaks a seal.
 */
export const withPersonalData = (store: EventStore, keys: PersonKeys): EventStore => {
  const conceal = async (request: AppendRequest): Promise<AppendRequest> => {
    const userId = userStreamUserId(request.streamId);
    if (userId === undefined || !request.events.some((e) => fieldsOf(e.type))) return request;
    const key = await keys.obtain(userId);
    const events = request.events.map((e) => {
      const fields = fieldsOf(e.type);
      const personal = fields?.take(e.data);
      if (!fields || !personal) return e;
      const blank = fields.blank(e.data);
      // Erased: the person's later events carry no personal data at all.
      if (!key) return { ...e, data: blank };
      return { ...e, data: { ...blank, [PERSONAL]: encryptPersonal(key, contextOf(request.streamId, e.id), personal) } };
    });
    return { ...request, events };
  };

  const reveal = async (events: readonly RecordedEvent[]): Promise<RecordedEvent[]> => {
    if (!events.some(isSealed)) return events as RecordedEvent[];
    const owners = events.filter(isSealed).map((e) => userStreamUserId(e.streamId) ?? 0);
    const found = await keys.find(owners);
    return events.map((e) => {
      if (!isSealed(e)) return e;
      const fields = fieldsOf(e.type)!;
      const { [PERSONAL]: envelope, ...rest } = e.data;
      const key = found.get(userStreamUserId(e.streamId) ?? 0);
      const personal = key ? (decryptPersonal(key, contextOf(e.streamId, e.id), envelope as string) as Record<string, unknown>) : undefined;
      return { ...e, data: fields.restore(rest, personal) };
    });
  };

  return {
    kind: store.kind,
    claimsKeys: store.claimsKeys,
    ...(store.appendConcurrency === undefined ? {} : { appendConcurrency: store.appendConcurrency }),
    append: async (request) => store.append(await conceal(request)),
    appendMany: async (requests) => store.appendMany(await Promise.all(requests.map(conceal))),
    readStream: async (streamId, options) => reveal(await store.readStream(streamId, options)),
    readStreamBackward: async (streamId, options) => reveal(await store.readStreamBackward(streamId, options)),
    readStreamByKeys: async (streamId, k, options) => reveal(await store.readStreamByKeys(streamId, k, options)),
    readSnapshot: (streamId) => store.readSnapshot(streamId),
    writeSnapshot: (streamId, snapshot) => store.writeSnapshot(streamId, snapshot),
    readAll: async (options) => reveal(await store.readAll(options)),
    headPosition: () => store.headPosition(),
    subscribe: (options) => store.subscribe({ ...options, onEvents: async (events) => options.onEvents(await reveal(events)) }),
    ping: () => store.ping(),
    close: () => store.close(),
  };
};
