export * from './wallet.commands.js';
export * from './wallet.errors.js';
export * from './wallet.events.js';
export * from './wallet.state.js';
export { evolve, foldWallet } from './wallet.evolve.js';
export { decide } from './wallet.decide.js';
export { multiplierOf } from './wallet.decide.bets.js';
