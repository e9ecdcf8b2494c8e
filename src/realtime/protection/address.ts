import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The names express (proxy-addr) accepts, so TRUST_PROXY means the same on every surface. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** One textual form per address (IPv4-mapped as IPv4, port and brackets dropped); undefined for a non-IP. */
export const normalizeAddress = (raw: string): string | undefined => {
  let text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]`).hostname.slice(1, -1);
  } catch {
    return text.toLowerCase(); // a zone id (fe80::1%eth0): kept as given
  }
  const mapped = MAPPED_HEX.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
};

type Trusted = (address: string) => boolean;

const compileTrust = (entries: readonly string[]): Trusted => {
  const list = new BlockList();
  for (const entry of entries.flatMap((e) => NAMED_RANGES[e.trim().toLowerCase()] ?? [e])) {
    const [rawAddress = '', rawPrefix, ...rest] = entry.trim().split('/');
    const address = normalizeAddress(rawAddress);
    if (address === undefined || rest.length > 0 || (rawPrefix !== undefined && !/^\d{1,3}$/.test(rawPrefix))) {
      throw new Error(`TRUST_PROXY: '${entry}' is not an IP address or CIDR`);
    }
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    // An IPv4-mapped range (::ffff:10.0.0.0/104) became IPv4: its prefix loses the 96 mapped bits.
    const bits = rawPrefix === undefined ? undefined : Number(rawPrefix) - (family === 'ipv4' && isIP(rawAddress) === 6 ? 96 : 0);
    if (bits === undefined) list.addAddress(address, family);
    else if (bits < 0 || bits > (family === 'ipv4' ? 32 : 128)) throw new Error(`TRUST_PROXY: '${entry}' has a bad prefix length`);
    else list.addSubnet(address, bits, family);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
};

const compiled = new WeakMap<readonly string[], Trusted>();
const trustOf = (entries: readonly string[]): Trusted => {
  let trusted = compiled.get(entries);
  if (!trusted) {
    trusted = compileTrust(entries);
    compiled.set(entries, trusted);
  }
  return trusted;
};

export const validateTrustProxy = (entries: readonly string[]): void => {
  trustOf(entries);
};

/** X-Forwarded-For is walked from the right through trusted proxies only; hops left of the client were written by it and never read. */
export const clientAddress = (req: IncomingMessage, trustProxy: readonly string[]): string => {
  const remote = req.socket.remoteAddress;
  let current = (remote === undefined ? undefined : normalizeAddress(remote)) ?? remote ?? 'unknown';
  if (trustProxy.length === 0) return current;
  const trusted = trustOf(trustProxy);
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  for (let i = hops.length - 1; i >= 0 && trusted(current); i -= 1) {
    const hop = normalizeAddress(hops[i]!);
    if (hop === undefined) break;
    current = hop;
  }
  return current;
};
