import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate authority made for one test, and a server certificate for `localhost` that it signed. */
export type TestCa = Readonly<{
  /** Path of the CA certificate (PEM), e.g. for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  server: Readonly<{ key: string; cert: string }>;
  remove: () => void;
}>;

/** Made with the `openssl` command line (Debian's openssl package), as an operator would make a private CA. */
export const makeTestCa = (): TestCa => {
  const dir = mkdtempSync(join(tmpdir(), 'test-ca-'));
  const at = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=casino-ledger test CA',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=keyCertSign',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', at('server.key'), '-out', at('server.csr'));
  writeFileSync(at('server.ext'), 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    at('server.ext'),
    '-out',
    at('server.pem'),
  );
  return {
    caFile: at('ca.pem'),
    server: { key: readFileSync(at('server.key'), 'utf8'), cert: readFileSync(at('server.pem'), 'utf8') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};
