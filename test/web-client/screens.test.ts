/**
 * Which screen the page shows after what, and where a resume tells its progress: over the
 * world when it starts in the world, on a card anywhere else.
 */
import { describe, expect, it } from 'vitest';
import { Screens, type Screen, type ScreenViews } from '../../web-client/src/app/screens.js';

function screens() {
  const shown: [Screen, string[]][] = [];
  const notices: string[] = [];
  const cards: string[] = [];
  const s = new Screens<string>((screen, content) => shown.push([screen, content]));
  const views: ScreenViews<string> = {
    reconnecting: () => ({ content: ['card'], say: (text) => cards.push(text) }),
    login: (notice) => [`login${notice ? `: ${notice}` : ''}`],
    characters: (account) => [`characters of ${account}`],
    world: () => ['hud', 'menu'],
    notice: (text) => notices.push(text),
  };
  s.use(views);
  return { s, shown, notices, cards };
}

describe('screens', () => {
  it('start loading, and follow the log-in, the characters and the world', () => {
    const { s, shown } = screens();
    expect(s.current).toBe('loading');
    s.login();
    s.characters('ann');
    s.world();
    expect(s.inWorld).toBe(true);
    s.characters('ann');
    s.login('Logged out.');
    expect(shown).toEqual([
      ['login', ['login']],
      ['characters', ['characters of ann']],
      ['world', ['hud', 'menu']],
      ['characters', ['characters of ann']],
      ['login', ['login: Logged out.']],
    ]);
    expect(s.inWorld).toBe(false);
  });

  it('land a resume in the world, or at the account’s characters', () => {
    const { s, shown } = screens();
    s.resumed(true, 'ann');
    s.resumed(false, 'ann');
    expect(shown.map(([screen]) => screen)).toEqual(['world', 'characters']);
  });

  it('tell a resume from the world over the world, which stays on screen', () => {
    const { s, shown, notices, cards } = screens();
    s.world();
    const say = s.reconnecting();
    say('Reconnecting (attempt 2 of 6)…');
    expect(shown.map(([screen]) => screen)).toEqual(['world']);
    expect(notices).toEqual(['Connection lost. Reconnecting…', 'Reconnecting (attempt 2 of 6)…']);
    expect(cards).toEqual([]);
    // Gone from the world (the resume failed): no more notices over it.
    s.login('Could not resume');
    say('Reconnecting (attempt 3 of 6)…');
    expect(notices).toHaveLength(2);
  });

  it('tell a resume from anywhere else on the reconnecting card', () => {
    const { s, shown, notices, cards } = screens();
    const say = s.reconnecting();
    say('Reconnecting (attempt 2 of 3)…');
    expect(shown).toEqual([['loading', ['card']]]);
    expect(cards).toEqual(['Reconnecting…', 'Reconnecting (attempt 2 of 3)…']);
    expect(notices).toEqual([]);
  });

  it('refuse to show anything before they are given what screens are made of', () => {
    const s = new Screens<string>(() => undefined);
    expect(() => s.login()).toThrow(/Screens.use/);
    expect(s.current).toBe('loading');
  });
});
