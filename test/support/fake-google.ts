import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

/** What the browser brought to /authorize, as the stand-in recorded it. */
export type AuthorizationRequest = Readonly<{
  clientId: string;
  redirectUri: string;
  responseType: string;
  scope: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  state: string;
  nonce: string;
}>;

export type FakeUser = Readonly<{ sub: string; email?: string; email_verified?: boolean }>;

/** Ways the stand-in can be told to misbehave in the ID token it issues next. */
export type Misbehaviour = 'wrong-nonce' | 'wrong-audience' | 'expired' | 'bad-signature' | 'wrong-issuer';

export type FakeGoogle = Readonly<{
  issuer: string;
  clientId: string;
  clientSecret: string;
  authorizations: AuthorizationRequest[];
  /** Token requests refused, with the reason (e.g. 'pkce-mismatch'). */
  tokenRefusals: string[];
  /** The user approves the request: the callback URL the provider would send the browser to. */
  approve: (request: AuthorizationRequest, user?: FakeUser) => string;
  misbehave: (how: Misbehaviour | undefined) => void;
  close: () => Promise<void>;
}>;

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
};

const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** What a browser brings to /authorize, read from the URL the service redirected it to. */
export const authorizationRequestOf = (url: URL): AuthorizationRequest => {
  const p = (name: string): string => url.searchParams.get(name) ?? '';
  return {
    clientId: p('client_id'),
    redirectUri: p('redirect_uri'),
    responseType: p('response_type'),
    scope: p('scope'),
    codeChallenge: p('code_challenge'),
    codeChallengeMethod: p('code_challenge_method'),
    state: p('state'),
    nonce: p('nonce'),
  };
};

/** The client's credentials from client_secret_basic or client_secret_post. */
const clientCredentials = (req: IncomingMessage, form: URLSearchParams): [string | undefined, string | undefined] => {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
    return [id, secret];
  }
  return [form.get('client_id') ?? undefined, form.get('client_secret') ?? undefined];
};

/** A local OpenID Connect provider: discovery, /authorize, /token (PKCE S256, client auth), /jwks. */
export type FakeGoogleOptions = Readonly<{
  clientId?: string;
  clientSecret?: string;
  /** Served over HTTPS with this key and certificate (for `localhost`), as the real provider is. */
  tls?: Readonly<{ key: string; cert: string }>;
}>;

export const startFakeGoogle = async (options: FakeGoogleOptions = {}): Promise<FakeGoogle> => {
  const clientId = options.clientId ?? 'test-client.apps.example';
  const clientSecret = options.clientSecret ?? 'test-client-secret';
  const kid = 'test-key-1';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const impostorKey = (await generateKeyPair('RS256')).privateKey;
  const authorizations: AuthorizationRequest[] = [];
  const tokenRefusals: string[] = [];
  const codes = new Map<string, { request: AuthorizationRequest; user: FakeUser }>();
  let misbehaviour: Misbehaviour | undefined;
  let issuer = '';

  const idToken = async (request: AuthorizationRequest, user: FakeUser): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const iat = misbehaviour === 'expired' ? now - 7200 : now;
    const key: CryptoKey = misbehaviour === 'bad-signature' ? impostorKey : privateKey;
    return new SignJWT({ ...user, nonce: misbehaviour === 'wrong-nonce' ? 'someone-elses-nonce' : request.nonce })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(misbehaviour === 'wrong-issuer' ? 'https://impostor.example' : issuer)
      .setAudience(misbehaviour === 'wrong-audience' ? 'another-client.apps.example' : clientId)
      .setSubject(user.sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key);
  };

  const token = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = new URLSearchParams(await readBody(req));
    const refuse = (reason: string, error = 'invalid_grant'): void => {
      tokenRefusals.push(reason);
      json(res, error === 'invalid_client' ? 401 : 400, { error, error_description: reason });
    };
    const [id, secret] = clientCredentials(req, form);
    if (id !== clientId || secret !== clientSecret) return refuse('client-auth', 'invalid_client');
    if (form.get('grant_type') !== 'authorization_code') return refuse('grant-type', 'unsupported_grant_type');
    const issued = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (!issued) return refuse('unknown-code');
    if (form.get('redirect_uri') !== issued.request.redirectUri) return refuse('redirect-uri-mismatch');
    if (s256(form.get('code_verifier') ?? '') !== issued.request.codeChallenge) return refuse('pkce-mismatch');
    json(res, 200, {
      access_token: randomBytes(16).toString('hex'),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: issued.request.scope,
      id_token: await idToken(issued.request, issued.user),
    });
  };

  const handler: RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (route === 'GET /jwks') {
      void exportJWK(publicKey).then((jwk) => json(res, 200, { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] }));
      return;
    }
    if (route === 'GET /authorize') {
      authorizations.push(authorizationRequestOf(url));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Sign in to continue</p>');
      return;
    }
    if (route === 'POST /token') {
      token(req, res).catch((error: unknown) => json(res, 500, { error: 'server_error', error_description: String(error) }));
      return;
    }
    json(res, 404, { error: 'not_found' });
  };
  const server = options.tls ? createTlsServer(options.tls, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  issuer = options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    tokenRefusals,
    approve: (request, user = { sub: '110169484474386276334', email: 'ada@example.com', email_verified: true }) => {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { request, user });
      const callback = new URL(request.redirectUri);
      callback.searchParams.set('code', code);
      callback.searchParams.set('state', request.state);
      return callback.href;
    },
    misbehave: (how) => {
      misbehaviour = how;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
