/**
 * The screens before the world: log in or register (SRP runs in the page; the password
 * never leaves it), then the character list with create, delete and play.
 */
import type { CharacterSummary } from '../../../shared/client/client.js';
import { passwordProblem } from '../../../shared/client/password.js';
import { cssColour, PLAYER_COLOURS } from '../render/palette.js';
import { h, fill, errorText } from './dom.js';

export const APPEARANCES = ['Azure', 'Moss', 'Amber', 'Violet', 'Teal', 'Rose', 'Ivory', 'Periwinkle'];
const APPEARANCE_COLOURS = PLAYER_COLOURS.map(cssColour);

export interface LoginActions {
  login(account: string, password: string, onQueue: (pos: number, len: number) => void): Promise<void>;
  register(account: string, password: string): Promise<void>;
}

export function loginScreen(actions: LoginActions, notice?: string): HTMLElement {
  const account = h('input', {
    name: 'account',
    autocomplete: 'username',
    placeholder: 'account',
    maxLength: 32,
  });
  const password = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    placeholder: 'password',
  });
  const status = h('p.status', { role: 'status' }, notice ?? '');
  const loginBtn = h('button', { type: 'submit', name: 'login' }, 'Log in');
  const registerBtn = h('button.secondary', { type: 'button', name: 'register' }, 'Create account');
  const busy = (on: boolean) => {
    loginBtn.disabled = registerBtn.disabled = on;
  };
  const run = async (what: 'login' | 'register') => {
    const a = account.value.trim();
    const p = password.value;
    if (!a || !p) {
      setStatus(status, 'Enter an account name and a password.', true);
      return;
    }
    const weak = what === 'register' ? passwordProblem(p) : undefined;
    if (weak) {
      setStatus(status, weak, true);
      password.focus();
      return;
    }
    busy(true);
    try {
      if (what === 'register') {
        setStatus(status, 'Creating the account…');
        await actions.register(a, p);
        setStatus(status, 'Account created. Logging in…');
      } else {
        setStatus(status, 'Logging in…');
      }
      await actions.login(a, p, (pos, len) => setStatus(status, `In the login queue: ${pos} of ${len}…`));
    } catch (err) {
      setStatus(status, errorText(err), true);
      busy(false);
    }
  };
  const form = h(
    'form.card.login',
    {
      onsubmit: (e: Event) => {
        e.preventDefault();
        void run('login');
      },
    },
    h('h1', {}, 'Wyvern'),
    h('label', {}, 'Account', account),
    h('label', {}, 'Password', password),
    h('div.row', {}, loginBtn, registerBtn),
    status,
    h('p.hint', {}, 'Your password never leaves this page: the login proves it with SRP-6a.'),
  );
  registerBtn.addEventListener('click', () => void run('register'));
  queueMicrotask(() => account.focus());
  return form;
}

export interface CharacterActions {
  list(): Promise<CharacterSummary[]>;
  create(name: string, appearance: number): Promise<CharacterSummary>;
  remove(id: number): Promise<void>;
  play(id: number, appearance: number): Promise<void>;
  logout(): void;
  /** The body as the world draws it, for the appearance chosen (undefined: no renderer to ask). */
  preview?(appearance: number): HTMLCanvasElement | undefined;
}

export function characterScreen(actions: CharacterActions, account: string): HTMLElement {
  const list = h('ul.characters');
  const status = h('p.status', { role: 'status' });
  const name = h('input', { name: 'name', placeholder: 'name (3-16 letters)', maxLength: 16 });
  const appearance = h('select', { name: 'appearance' });
  APPEARANCES.forEach((a, i) => appearance.append(h('option', { value: String(i) }, a)));
  // The new character as it will stand in the world, redrawn as the choice changes.
  const preview = h('figure.preview', { 'aria-label': 'How the character looks' });
  const showPreview = () => {
    const i = Number(appearance.value);
    const body = actions.preview?.(i);
    const colour = h('span.swatch', {
      style: { background: APPEARANCE_COLOURS[i % APPEARANCE_COLOURS.length] },
    });
    fill(preview, body ?? colour, h('figcaption', {}, APPEARANCES[i] ?? ''));
    preview.dataset['appearance'] = String(i);
  };
  appearance.addEventListener('change', showPreview);
  appearance.addEventListener('input', showPreview);
  showPreview();

  const refresh = async () => {
    try {
      const chars = await actions.list();
      fill(list, ...(chars.length === 0 ? [h('li.empty', {}, 'No characters yet: create one below.')] : []));
      for (const c of chars) list.append(characterRow(c));
    } catch (err) {
      setStatus(status, errorText(err), true);
    }
  };

  const characterRow = (c: CharacterSummary): HTMLElement => {
    const play = h('button', { name: 'play' }, 'Play');
    const del = h('button.danger', { name: 'delete' }, 'Delete');
    play.addEventListener('click', async () => {
      play.disabled = true;
      setStatus(status, `Entering the world as ${c.name}…`);
      try {
        await actions.play(c.id, c.appearance);
      } catch (err) {
        setStatus(status, errorText(err), true);
        play.disabled = false;
      }
    });
    del.addEventListener('click', async () => {
      if (!confirm(`Delete ${c.name} for good?`)) return;
      try {
        await actions.remove(c.id);
        setStatus(status, `${c.name} was deleted.`);
        await refresh();
      } catch (err) {
        setStatus(status, errorText(err), true);
      }
    });
    return h(
      'li',
      { 'data-id': String(c.id) },
      h('span.swatch', {
        style: { background: APPEARANCE_COLOURS[c.appearance % APPEARANCE_COLOURS.length] },
      }),
      h('span.name', {}, c.name),
      h('span.meta', {}, `level ${c.level} · ${c.zone}`),
      play,
      del,
    );
  };

  const form = h(
    'form.create',
    {
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const c = await actions.create(name.value.trim(), Number(appearance.value));
          name.value = '';
          setStatus(status, `${c.name} is ready.`);
          await refresh();
        } catch (err) {
          setStatus(status, errorText(err), true);
        }
      },
    },
    preview,
    h(
      'div.fields',
      {},
      name,
      h('div.row', {}, appearance, h('button', { type: 'submit', name: 'create' }, 'Create')),
    ),
  );

  void refresh();
  return h(
    'div.card.chars',
    {},
    h('h1', {}, 'Characters'),
    h('p.hint', {}, `Account ${account}`),
    list,
    h('h2', {}, 'New character'),
    form,
    status,
    h(
      'div.row',
      {},
      h('button.secondary', { type: 'button', name: 'logout', onclick: () => actions.logout() }, 'Log out'),
    ),
  );
}

export function setStatus(el: HTMLElement, text: string, isError = false): void {
  el.textContent = text;
  el.classList.toggle('error', isError);
}
