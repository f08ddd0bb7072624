/**
 * What each screen is made of in the page (app/screens.ts decides which shows): the
 * reconnecting card, the log-in and character screens (ui/screens.ts) acting through the
 * connection manager, and the world's HUD, netcode panel, menu and guide over the canvas.
 */
import type { ClientWorld } from '../state/world.js';
import { fill, h } from '../ui/dom.js';
import type { Guide } from '../ui/guide.js';
import type { Hud } from '../ui/hud.js';
import type { NetPanel } from '../ui/net-panel.js';
import { characterScreen, loginScreen } from '../ui/screens.js';
import type { ConnectionManager } from './connection-manager.js';
import type { Mount, ScreenViews } from './screens.js';

export interface PageParts {
  world: ClientWorld;
  session: Pick<
    ConnectionManager,
    | 'register'
    | 'login'
    | 'listCharacters'
    | 'createCharacter'
    | 'deleteCharacter'
    | 'enter'
    | 'close'
    | 'leaveWorld'
  >;
  /** The body as the world draws it, for the character screen's preview. */
  previewBody(appearance: number): HTMLCanvasElement | undefined;
  hud: Hud;
  panel: NetPanel;
  guide: Guide;
}

export function pageViews(parts: PageParts): ScreenViews<HTMLElement> {
  const { world, session } = parts;
  return {
    reconnecting: () => {
      const status = h('p.status', { role: 'status' });
      return {
        content: [h('div.card.login', {}, h('h1', {}, 'Wyvern'), status)],
        say: (text) => (status.textContent = text),
      };
    },
    login: (notice) => [
      loginScreen(
        {
          register: (account, password) => session.register(account, password),
          login: (account, password, onQueue) => session.login(account, password, onQueue),
        },
        notice,
      ),
    ],
    characters: (account) => [
      characterScreen(
        {
          list: () => session.listCharacters(),
          create: (name, appearance) => session.createCharacter(name, appearance),
          preview: (appearance) => parts.previewBody(appearance),
          remove: (id) => session.deleteCharacter(id),
          play: (id, appearance) => session.enter(id, appearance),
          logout: () => session.close(),
        },
        account,
      ),
    ],
    world: () => worldScreen(parts),
    notice: (text) => world.notice(text, performance.now()),
  };
}

function worldScreen({ session, hud, panel, guide }: PageParts): HTMLElement[] {
  const leave = h(
    'button.leave',
    { type: 'button', name: 'leave', onclick: () => void session.leaveWorld() },
    'Log out',
  );
  const menu = h('nav.menu', {}, guide.helpButton, guide.muteButton, panel.button, leave);
  return [hud.root, panel.root, menu, guide.hint, guide.overlay];
}

/** Shows a screen in `host`, and names it on the body (styles and tests read it). */
export function mountOn(host: HTMLElement): Mount<HTMLElement> {
  return (screen, content) => {
    document.body.dataset['screen'] = screen;
    fill(host, ...content);
  };
}
