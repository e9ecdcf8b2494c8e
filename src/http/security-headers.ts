import type { RequestHandler } from 'express';
import helmet from 'helmet';

const NONE = ["'none'"];
const SELF = ["'self'"];

/**
 * Pages: the console (`/admin`) and the API documentation (`/docs`). Scripts only from the service's own files, never
 * inline or eval. Styles may be inline: the console's component library injects <style> elements at run time; a style
 * can restyle a page but runs no code, and `frame-ancestors 'none'` keeps any page from being framed (clickjacking).
 */
const pageDirectives = {
  defaultSrc: SELF,
  scriptSrc: SELF,
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: SELF,
  objectSrc: NONE,
  baseUri: NONE,
  formAction: SELF,
  frameAncestors: NONE,
};

/** Everything else is data (JSON, CSV): nothing in it may load or run anything, nor be framed. */
const dataDirectives = { defaultSrc: NONE, frameAncestors: NONE, baseUri: NONE, formAction: NONE };

const PAGES = /^\/(admin|docs)(\/|$)/;

/**
 * Helmet's headers on every answer: a CSP (strict for pages, nothing allowed for data), X-Frame-Options DENY,
 * nosniff, no referrer, and HSTS outside local development (HTTPS is assumed there, in front of the service).
 */
const commonOf = (options: Readonly<{ hsts: boolean }>) => ({
  frameguard: { action: 'deny' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
  strictTransportSecurity: options.hsts ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  crossOriginResourcePolicy: { policy: 'same-site' as const },
});

export const securityHeaders = (options: Readonly<{ hsts: boolean }>): RequestHandler => {
  const common = commonOf(options);
  const pages = helmet({ ...common, contentSecurityPolicy: { useDefaults: false, directives: pageDirectives } });
  const data = helmet({ ...common, contentSecurityPolicy: { useDefaults: false, directives: dataDirectives } });
  return (req, res, next) => (PAGES.test(req.path) ? pages(req, res, next) : data(req, res, next));
};

/** The headers a data answer gets, as name-value pairs: for the internal API's lean path, which answers without express. */
export const dataHeaderList = (options: Readonly<{ hsts: boolean }>): readonly (readonly [string, string])[] => {
  const headers: [string, string][] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
    getHeader: () => undefined,
  };
  const middleware = helmet({ ...commonOf(options), contentSecurityPolicy: { useDefaults: false, directives: dataDirectives } });
  middleware({ method: 'GET', path: '/', headers: {} } as never, res as never, () => undefined);
  return headers;
};
