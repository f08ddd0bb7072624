/** The zone simulation's public face: data, state, step, and the helpers the session layer needs. */
export { DataError, loadWorldData, MAX_LEVEL, parseWorldData, SPAWN_SAFE_RADIUS } from './data.js';
export {
  isGrey,
  killExperience,
  levelStats,
  maxLevel,
  startingState,
  withSpellPower,
} from './progression.js';
export type { StartingState } from './progression.js';
export type { DataSource, WorldSources } from './data.js';
export { mulberry32, randomInt, randomRange } from '../../shared/game/rng.js';
export type { Rng } from '../../shared/game/rng.js';
export { step, utf8Length } from './step.js';
export type { StepResult } from './step.js';
export {
  createWorld,
  entityById,
  findPlayerByName,
  joinPlayer,
  leavePlayer,
  observerList,
  ownStats,
  savedCharacter,
} from './world.js';
export type { JoinResult, World, WorldStats } from './world.js';
export { CellSet } from './cell-set.js';
export { EntitySet, IdMap, IdSet } from './id-table.js';
export type * from './types.js';
