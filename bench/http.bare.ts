/**
 * The bare route of bench:http, run in a child process of its own: node:http, parse the JSON body, one INSERT of an
 * event-sized row on a pg pool of the service's size, a JSON answer. What a bet through HTTP costs with nothing else.
 * Env: BARE_DATABASE_URL, BARE_PORT. Prints "ready" once listening.
 */
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 20 });
await pool.query(`CREATE TABLE IF NOT EXISTS bare_events (
  id bigserial PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; userId: number };
        const { rows } = await pool.query<{ id: string }>(
          'INSERT INTO bare_events (stream_id, type, data) VALUES ($1, $2, $3) RETURNING id',
          [`wallet-${body.userId}`, 'BetPlaced', JSON.stringify(body)],
        );
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: body.id, position: rows[0]!.id }));
      } catch (error) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: (error as Error).message }));
      }
    })();
  });
});
server.listen(Number(process.env.BARE_PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
