import type { z } from 'zod';

/** Live roles and permissions, read at authentication. */
export type SocketUser = Readonly<{
  userId: number;
  /** Null for API keys. */
  sessionId: string | null;
  username: string | null;
  roles: readonly string[];
  permissions: readonly string[];
}>;

export type ClientEventContext = Readonly<{
  socketId: string;
  /** Undefined on an anonymous socket. */
  user: SocketUser | undefined;
  /** TRUST_PROXY-aware. */
  address: string;
  join: (room: string) => Promise<void>;
  leave: (room: string) => Promise<void>;
}>;

export type HandlerAccess = 'optional' | 'required' | Readonly<{ permission: string }>;

export type ClientEventHandler = Readonly<{
  event: string;
  access: HandlerAccess;
  schema: z.ZodType;
  handle: (data: any, ctx: ClientEventContext) => Promise<unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
}>;

/** Acknowledgement envelope of every client event (docs/realtime.md). */
export type Ack =
  | Readonly<{ status: 200; data: unknown }>
  | Readonly<{ status: number; code: string; message: string; details?: readonly Readonly<{ field: string; message: string }>[] }>;

/** Travels on `server_channel_event.<EventName>` between processes. */
export type BusMessage = Readonly<{
  userId?: number;
  room?: string;
  position?: string;
  payload: unknown;
}>;
