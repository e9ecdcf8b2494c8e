import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const OPENID_NS = 'http://specs.openid.net/auth/2.0';
const SIGNED = ['signed', 'op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'];

/** What goes into a positive assertion; each field can be forced, as a misbehaving or hostile provider would. */
export type AssertionOptions = Readonly<{
  steamId?: string;
  claimedId?: string;
  identity?: string;
  opEndpoint?: string;
  returnTo?: string;
  /** The whole response nonce; by default the current time plus a random suffix. */
  nonce?: string;
  issuedAt?: Date;
  /** Field names listed in openid.signed (and signed); default all that matter. */
  signed?: readonly string[];
}>;

export type CheckAuthentication = Readonly<{ params: URLSearchParams; answer: boolean }>;

export type FakeSteam = Readonly<{
  endpoint: string;
  claimedIdHost: string;
  /** The checkid_setup requests browsers were sent with. */
  setups: URLSearchParams[];
  checks: CheckAuthentication[];
  /** The user signs in: the URL the provider sends the browser back to (its return_to plus the signed assertion). */
  approve: (setupUrl: string, options?: AssertionOptions) => string;
  /** The same URL with fields changed after signing (undefined removes one). */
  tamper: (returnUrl: string, changes: Readonly<Record<string, string | undefined>>) => string;
  close: () => Promise<void>;
}>;

const nonceAt = (at: Date): string => `${at.toISOString().replace(/\.\d{3}Z$/, 'Z')}${randomBytes(6).toString('hex')}`;

/** OpenID 2.0 key-value form of the signed fields, in the order openid.signed lists them. */
const signatureBase = (fields: URLSearchParams): string =>
  (fields.get('openid.signed') ?? '')
    .split(',')
    .map((name) => `${name}:${fields.get(`openid.${name}`) ?? ''}\n`)
    .join('');

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** A local OpenID 2.0 provider: it signs assertions with per-assertion handles and confirms only its own. */
export const startFakeSteam = async (options: { claimedIdHost?: string } = {}): Promise<FakeSteam> => {
  const claimedIdHost = options.claimedIdHost ?? 'steamcommunity.com';
  const handles = new Map<string, Buffer>();
  const setups: URLSearchParams[] = [];
  const checks: CheckAuthentication[] = [];
  let endpoint = '';

  const sign = (fields: URLSearchParams, handle: string): string => {
    const key = handles.get(handle);
    return key ? createHmac('sha256', key).update(signatureBase(fields)).digest('base64') : '';
  };

  const verify = (fields: URLSearchParams): boolean => {
    const expected = Buffer.from(sign(fields, fields.get('openid.assoc_handle') ?? ''));
    const given = Buffer.from(fields.get('openid.sig') ?? '');
    return expected.length > 0 && expected.length === given.length && timingSafeEqual(expected, given);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', endpoint);
    if (url.pathname !== '/openid/login') return void res.writeHead(404).end();
    if (req.method === 'GET') {
      setups.push(url.searchParams);
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Sign in through the game platform</p>');
    }
    void readBody(req).then((body) => {
      const params = new URLSearchParams(body);
      const answer = params.get('openid.mode') === 'check_authentication' && verify(params);
      checks.push({ params, answer });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ns:${OPENID_NS}\nis_valid:${answer}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openid/login`;

  const approve = (setupUrl: string, o: AssertionOptions = {}): string => {
    const setup = new URL(setupUrl).searchParams;
    const returnTo = o.returnTo ?? setup.get('openid.return_to') ?? '';
    const claimedId = o.claimedId ?? `https://${claimedIdHost}/openid/id/${o.steamId ?? '76561197960287930'}`;
    const handle = randomBytes(8).toString('hex');
    handles.set(handle, randomBytes(32));
    const fields = new URLSearchParams({
      'openid.ns': OPENID_NS,
      'openid.mode': 'id_res',
      'openid.op_endpoint': o.opEndpoint ?? endpoint,
      'openid.claimed_id': claimedId,
      'openid.identity': o.identity ?? claimedId,
      'openid.return_to': returnTo,
      'openid.response_nonce': o.nonce ?? nonceAt(o.issuedAt ?? new Date()),
      'openid.assoc_handle': handle,
      'openid.signed': (o.signed ?? SIGNED).join(','),
    });
    fields.set('openid.sig', sign(fields, handle));
    // The browser goes back to the return_to it was given; the assertion rides along in its query.
    const back = new URL(setup.get('openid.return_to') ?? returnTo);
    for (const [key, value] of fields) back.searchParams.append(key, value);
    return back.href;
  };

  return {
    endpoint,
    claimedIdHost,
    setups,
    checks,
    approve,
    tamper: (returnUrl, changes) => {
      const url = new URL(returnUrl);
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) url.searchParams.delete(key);
        else url.searchParams.set(key, value);
      }
      return url.href;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
