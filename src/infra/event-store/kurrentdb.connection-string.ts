import { createRequire } from 'node:module';

type ConnectionOptions = Readonly<{ dnsDiscover: boolean; hosts: readonly Readonly<{ address: string; port: number }>[] }>;
const require = createRequire(import.meta.url);

/** Checked by the client's own parser, loaded only here; the message never repeats the string (it may hold credentials). */
export const connectionStringProblem = (value: string): string | undefined => {
  // The parser is not exported from the package's index; it is the one KurrentDBClient.connectionString calls.
  const { parseConnectionString } = require('@kurrent/kurrentdb-client/dist/Client/parseConnectionString.js') as {
    parseConnectionString: (s: string) => ConnectionOptions;
  };
  const warn = console.warn;
  try {
    console.warn = () => undefined; // the parser warns about deprecated schemes on the console; we validate quietly
    const parsed = parseConnectionString(value);
    if (parsed.hosts.length === 0) return 'names no host';
    return undefined;
  } catch (error) {
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = at === undefined ? '' : ` (at character ${at})`;
    return `the KurrentDB client refuses it${where}: use kurrentdb://host:port[,host:port...]?options or kurrentdb+discover://`;
  } finally {
    console.warn = warn;
  }
};
