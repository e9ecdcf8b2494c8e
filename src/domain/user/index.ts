export * from './kyc.js';
export * from './permissions.js';
export * from './user.decide.js';
export * from './user.errors.js';
export * from './user.events.js';
export * from './user.state.js';
