/**
 * A session's entry into the world and its way out, as the session state machine sees them:
 * authenticated -> inWorld when its character's entity exists (the zone host said so), and
 * back to authenticated when the entity has left, unless the connection is closing. The
 * gateway calls these; nothing else writes a session's world state.
 */
import type { Session } from './session.js';

/** The character is in the world as `entityId`: zone packets are accepted from now on. */
export function enteredWorld(session: Session, entityId: number, characterId: number): void {
  session.entityId = entityId;
  session.characterId = characterId;
  session.state = 'inWorld';
}

/** The character's entity is gone (logout, take-over, or it never got one). */
export function leftWorld(session: Session): void {
  session.entityId = undefined;
  session.characterId = undefined;
  if (!session.closing && session.state === 'inWorld') session.state = 'authenticated';
}
