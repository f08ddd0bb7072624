/**
 * How the page teaches itself: the controls overlay (H or ?, the "?" button), a first-time hint
 * pointing at it until the player has opened it once (remembered in localStorage), and the
 * sound switch (M, or its button; remembered too).
 */
import type { Prefs } from '../state/prefs.js';
import { h } from './dom.js';
import type { Sound } from './sound.js';

/** The controls as the overlay lists them: keys, then what they do. */
export const CONTROLS: readonly (readonly [string, string])[] = [
  ['W A S D / arrows', 'walk'],
  ['click / Tab', 'target: Tab picks the nearest mob in sight, again for the next'],
  ['1 – 5', 'cast the spell on that key at your target (heals land on you without a player targeted)'],
  ['ring round you', "the last spell's range: red while the target is out of it"],
  ['Esc', 'clear the target'],
  ['Enter', 'chat: /z zone · /w name whisper · /r reply · /who'],
  ['M', 'sound on or off'],
  ['H or ?', 'these controls'],
  ['F3 or "net"', 'the netcode panel (latency, loss, interest ring)'],
];

export class Guide {
  readonly overlay: HTMLElement;
  readonly hint: HTMLElement;
  readonly helpButton: HTMLButtonElement;
  readonly muteButton: HTMLButtonElement;

  constructor(
    private readonly prefs: Prefs,
    private readonly sound: Sound,
  ) {
    const close = h(
      'button.close',
      { type: 'button', name: 'close-controls', onclick: () => this.close() },
      'Close',
    );
    this.overlay = h(
      'div.controls-overlay',
      { hidden: true, role: 'dialog', 'aria-label': 'Controls' },
      h(
        'div.card',
        {},
        h('h2', {}, 'Controls'),
        h(
          'table.controls',
          {},
          ...CONTROLS.map(([key, what]) => h('tr', {}, h('th', {}, key), h('td', {}, what))),
        ),
        h(
          'p.hint',
          {},
          'Fight what is near the spawn first: mobs get tougher the further you walk. Press H again to close.',
        ),
        close,
      ),
    );
    this.hint = h(
      'div.first-hint',
      { hidden: prefs.seenControls, role: 'note' },
      h('span', {}, 'New here? Press '),
      h('kbd', {}, 'H'),
      h('span', {}, ' for the controls.'),
      h(
        'button.dismiss',
        { type: 'button', name: 'dismiss-hint', title: 'Got it', onclick: () => this.dismissHint() },
        '×',
      ),
    );
    this.helpButton = h(
      'button.help-button',
      { type: 'button', name: 'help', title: 'Controls (H)', onclick: () => this.toggle() },
      '?',
    );
    this.muteButton = h('button.mute-button', {
      type: 'button',
      name: 'mute',
      title: 'Sound (M)',
      onclick: () => sound.toggleMute(),
    });
    sound.onMuteChange(() => this.showMute());
    this.showMute();
  }

  get open(): boolean {
    return !this.overlay.hidden;
  }

  toggle(): void {
    if (this.open) this.close();
    else {
      this.overlay.hidden = false;
      this.dismissHint();
    }
  }

  close(): void {
    this.overlay.hidden = true;
  }

  /**
   * The guide's keys in the world (not while typing): H or ? for the controls, M for sound,
   * Esc to close the overlay. True when the key was the guide's.
   */
  key(e: Pick<KeyboardEvent, 'code' | 'key' | 'preventDefault'>): boolean {
    if (e.code === 'KeyH' || e.key === '?') {
      this.toggle();
    } else if (e.code === 'KeyM') {
      this.sound.toggleMute();
    } else if (e.key === 'Escape' && this.open) {
      this.close();
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  }

  private dismissHint(): void {
    this.prefs.seenControls = true;
    this.hint.hidden = true;
  }

  private showMute(): void {
    const muted = this.sound.muted;
    this.muteButton.textContent = muted ? 'sound off' : 'sound on';
    this.muteButton.setAttribute('aria-pressed', String(muted));
    this.muteButton.classList.toggle('muted', muted);
  }
}
