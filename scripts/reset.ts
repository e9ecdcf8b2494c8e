/**
 * npm run reset — starts the embedded database over: removes DATA_DIR's cluster (also the one a run as root keeps under
 * /var/lib/casino-ledger), keeps the keys. The next `npm start` makes an empty ledger. Refused while the service runs.
 */
import { resetEmbeddedData } from '../src/infra/embedded-postgres.js';

const dataDir = process.env.DATA_DIR || './.data';
try {
  const removed = await resetEmbeddedData(dataDir);
  process.stdout.write(
    removed.length === 0
      ? `reset: no embedded database under DATA_DIR ${dataDir}: the next start makes one\n`
      : `reset: removed ${removed.join(', ')}; the next start makes an empty ledger (keys kept under ${dataDir}/keys)\n`,
  );
} catch (error) {
  process.stderr.write(`reset: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
