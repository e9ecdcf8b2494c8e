/** Socket.io room names: the gateway joins sockets to them and publishers address messages to them. */
export const userRoom = (userId: number): string => `user:${userId}`;
export const LIVE_BETS_ROOM = 'live-bets';
export const liveDropRoom = (slug: string): string => `live-drop:${slug}`;
export const chatRoom = (roomId: string): string => `chat:${roomId}`;
