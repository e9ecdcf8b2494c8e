import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Namespace } from 'socket.io';
import { allowedOrigins, type Config } from '../infra/config.js';
import type { Logger } from '../infra/logger.js';

export type Gateway = Readonly<{
  io: Server;
  /** The `/events` namespace, the only websocket surface. */
  events: Namespace;
  http: HttpServer;
  port: number;
  close: () => Promise<void>;
}>;

export type GatewayDeps = Readonly<{
  port: number;
  config: Pick<Config, 'frontendOrigin' | 'adminToolOrigin' | 'appEnv' | 'ws'>;
  logger: Logger;
  host?: string;
}>;

/**
 * The realtime gateway: socket.io on its own port, namespace `/events`, websocket transport only
 * (no long polling), cross-origin access for the configured origins. Authentication, rooms,
 * throttling and the Redis bridge arrive with the realtime issue; here it starts and accepts sockets.
 */
export const startGateway = async ({ port, config, logger, host }: GatewayDeps): Promise<Gateway> => {
  const log = logger.child({ component: 'gateway' });
  const http = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ statusCode: 404, code: 'NOT_FOUND', message: 'Not found' }));
  });
  const io = new Server(http, {
    transports: ['websocket'],
    serveClient: false,
    maxHttpBufferSize: config.ws.clientMessageMaxLen,
    cors: { origin: allowedOrigins(config), credentials: true },
  });
  const events = io.of('/events');
  events.on('connection', (socket) => {
    log.debug({ socketId: socket.id }, 'socket connected');
    socket.on('disconnect', (reason) => log.debug({ socketId: socket.id, reason }, 'socket disconnected'));
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const actualPort = (http.address() as AddressInfo).port;

  return {
    io,
    events,
    http,
    port: actualPort,
    // io.close() disconnects every socket and closes the HTTP server.
    close: () => new Promise<void>((resolve) => {
      void io.close(() => resolve());
    }),
  };
};
