export type { Projection, Sql } from './projection.js';
export { startProjector, type Projector, type ProjectorOptions } from './projection-runner.js';
export { rebuildProjections } from './rebuild.js';
