/** What an erased person's name reads as everywhere: never a valid username (3 to 16 letters and digits), so never claimable. */
export const ERASED_USERNAME = '[erased]';

type Data = Readonly<Record<string, unknown>>;
type Fields = Readonly<{
  /** The personal part of the event's data (undefined: none to conceal). */
  take(data: Data): Readonly<Record<string, unknown>> | undefined;
  /** The data as stored: the personal part blanked, same shape, so readers that see it never fail. */
  blank(data: Data): Data;
  /** The data with the personal part put back; `undefined`: the key is gone, the person erased. */
  restore(data: Data, personal: Readonly<Record<string, unknown>> | undefined): Data;
}>;

/** Profile settings that say nothing about who the person is; every other profile field (avatar, trade link) is personal. */
export const PROFILE_FLAGS: ReadonlySet<string> = new Set([
  'isStaff',
  'isVideoCreator',
  'customMinAffiliateLevel',
  'isTest',
  'isStreamer',
  'canUseChat',
  'isPrivate',
  'isStreamerMode',
  'isEmailNotificationsEnabled',
]);
const split = (changes: unknown): Readonly<{ flags: Data; personal: Data }> => {
  const entries = Object.entries((changes ?? {}) as Data);
  return {
    flags: Object.fromEntries(entries.filter(([k]) => PROFILE_FLAGS.has(k))),
    personal: Object.fromEntries(entries.filter(([k]) => !PROFILE_FLAGS.has(k))),
  };
};

const NO_REGISTRATION = { ip: null, userAgent: null, country: null, referrer: null };
const registrationOf = (data: Data): Data => (data.registration ?? {}) as Data;

/** Per user event type, which fields are personal: identifiers and traces of a person, never money or roles. */
export const PERSONAL_FIELDS: Readonly<Record<string, Fields>> = {
  UserRegistered: {
    take: (d) => {
      const r = registrationOf(d);
      return {
        email: d.email ?? null,
        username: d.username ?? null,
        country: d.country ?? null,
        registration: { ip: r.ip ?? null, userAgent: r.userAgent ?? null, country: r.country ?? null, referrer: r.referrer ?? null },
      };
    },
    blank: (d) => ({ ...d, email: null, username: null, country: null, registration: NO_REGISTRATION }),
    restore: (d, p) =>
      p
        ? { ...d, email: p.email, username: p.username, country: p.country, registration: p.registration }
        : { ...d, email: null, username: ERASED_USERNAME, country: null, registration: NO_REGISTRATION },
  },
  UsernameSet: {
    take: (d) => ({ username: d.username }),
    blank: (d) => ({ ...d, username: null }),
    restore: (d, p) => ({ ...d, username: p ? p.username : ERASED_USERNAME }),
  },
  ProfileUpdated: {
    take: (d) => {
      const personal = split(d.changes).personal;
      return Object.keys(personal).length > 0 ? { changes: personal } : undefined;
    },
    blank: (d) => ({ ...d, changes: split(d.changes).flags }),
    restore: (d, p) => ({ ...d, changes: { ...(d.changes as Data), ...(p ? (p.changes as Data) : {}) } }),
  },
  IdentityLinked: {
    take: (d) => ({ subject: d.subject, email: d.email ?? null }),
    blank: (d) => ({ ...d, subject: ERASED_USERNAME, email: null }),
    restore: (d, p) => ({ ...d, subject: p ? p.subject : ERASED_USERNAME, email: p ? p.email : null }),
  },
};

/** The field of a stored event's data that holds its personal part, encrypted (see person-keys.ts). */
export const PERSONAL = 'personal';

export const fieldsOf = (type: string): Fields | undefined => (Object.hasOwn(PERSONAL_FIELDS, type) ? PERSONAL_FIELDS[type] : undefined);

const hasValue = (v: unknown): boolean =>
  v !== null && v !== undefined && v !== ERASED_USERNAME && (typeof v !== 'object' || Object.values(v).some(hasValue));

/** A stored user event written before encryption: its personal fields are in the clear, not in an envelope. */
export const isLegacyPlaintext = (type: string, data: Data): boolean => {
  const fields = fieldsOf(type);
  return fields !== undefined && typeof data[PERSONAL] !== 'string' && hasValue(fields.take(data));
};
