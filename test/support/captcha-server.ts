import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CAPTCHA_SECRET = 'test-captcha-secret';
export const GOOD_CAPTCHA = 'good-captcha-token';

export type CaptchaStandIn = Readonly<{ url: string; requests: URLSearchParams[]; close: () => Promise<void> }>;

/** A local siteverify endpoint: `{success: true}` only for GOOD_CAPTCHA with the right secret. */
export const startCaptchaStandIn = async (): Promise<CaptchaStandIn> => {
  const requests: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      const success = req.method === 'POST' && form.get('secret') === CAPTCHA_SECRET && form.get('response') === GOOD_CAPTCHA;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(success ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
