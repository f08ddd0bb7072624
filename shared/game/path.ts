/**
 * Mob paths (MobPath): where a walker is along its waypoints at a time. The one
 * implementation lives in movement.ts beside the other movement rules; this module keeps the
 * path helpers importable by that name.
 */
export { pathLength, positionAlongPath, type PathPoint } from './movement.js';
