import { describe, expect, it } from 'vitest';
import { bodyStyle, PLAYER_COLOURS, SELF_MARK } from '../../web-client/src/render/palette.js';

describe('body colours', () => {
  it('draws your own character in the appearance you picked, marked by a ring', () => {
    for (let appearance = 0; appearance < PLAYER_COLOURS.length; appearance++) {
      const you = bodyStyle({ kind: 'player', appearance, template: 0 }, true);
      const other = bodyStyle({ kind: 'player', appearance, template: 0 }, false);
      expect(you.fill).toBe(PLAYER_COLOURS[appearance]);
      expect(you.fill).toBe(other.fill);
      expect(you.ring).toBe(SELF_MARK);
      expect(other.ring).toBeUndefined();
    }
  });
});
