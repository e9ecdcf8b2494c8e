/**
 * npm run ledger -- <command>: replay a user's balance at a point in time, the house's balances and trial
 * balance, verify the whole ledger, export a read model (see `npm run ledger -- help` and docs/audit.md). Needs DATABASE_URL.
 */
import { runLedgerCli } from '../src/audit/cli/ledger-cli.js';

process.exitCode = await runLedgerCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stdout: process.stdout,
  progressStream: process.stderr,
});
