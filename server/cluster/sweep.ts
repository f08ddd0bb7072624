/**
 * Dead gateways' session entries and lapsed resume records stay in the registry until their
 * keys are written again. The live gateway with the lowest id sweeps them now and then (a
 * sweep lists the whole bucket); should two think they are it for a moment, deletes are
 * checked by revision, so their sweeps may overlap harmlessly.
 */
import type { Logger } from '../log.js';
import type { ClusterRegistry } from './registry.js';

/** About how often a gateway sweeps the registry's stale session entries (ms). */
export const SESSION_SWEEP_MS = 10 * 60_000;

/** Whether gateway `self` leads the sweeps among the live gateways `ids`: none has a lower id. */
export function leadsSweeps(ids: readonly string[], self: string): boolean {
  return !ids.some((id) => id < self);
}

/**
 * Every `everyMs` (± 20%, so gateways started together do not sweep together) sweeps the
 * registry when `self` leads among `liveGateways()`. Returns the stop.
 */
export function sweepStaleSessions(
  registry: Pick<ClusterRegistry, 'sweepSessions'>,
  liveGateways: () => readonly string[],
  self: string,
  log: Logger,
  everyMs = SESSION_SWEEP_MS,
): () => void {
  const timer = setInterval(
    () => {
      if (!leadsSweeps(liveGateways(), self)) return;
      registry.sweepSessions().then(
        (removed) => {
          if (removed > 0) log.info({ removed }, 'registry: stale session entries removed');
        },
        (err: unknown) => log.warn({ err }, 'registry sweep failed (will retry)'),
      );
    },
    everyMs * (0.8 + Math.random() * 0.4),
  );
  timer.unref();
  return () => clearInterval(timer);
}
