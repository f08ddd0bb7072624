/**
 * The netcode panel (F3 or the "net" button): live figures, overlay toggles, the link lab
 * sliders and the switches that turn interpolation or prediction off to show what they do.
 */
import type { LinkSettings } from '../state/link-lab.js';
import type { NetStatsSnapshot } from '../state/net-stats.js';
import { h, fill } from './dom.js';

export interface PanelSettings {
  overlays: { interest: boolean; ghosts: boolean; grid: boolean };
  toggles: { interpolation: boolean; prediction: boolean };
  link: LinkSettings;
}

export interface PanelActions {
  setLink(link: LinkSettings): void;
  changed(): void;
}

export class NetPanel {
  readonly root: HTMLElement;
  readonly button: HTMLButtonElement;
  private readonly figures = h('table.figures');
  private readonly packets = h('table.packets');
  /** The newest figures, kept while hidden so the panel opens filled, its layout settled. */
  private last: { s: NetStatsSnapshot; extra: Record<string, string> } | undefined;

  constructor(
    private readonly settings: PanelSettings,
    private readonly actions: PanelActions,
  ) {
    this.button = h(
      'button.net-button',
      { type: 'button', title: 'Netcode panel (F3)', onclick: () => this.toggle() },
      'net',
    );
    const check = (label: string, get: () => boolean, set: (v: boolean) => void, name: string) => {
      const input = h('input', { type: 'checkbox', name, checked: get() });
      input.addEventListener('change', () => {
        set(input.checked);
        this.actions.changed();
      });
      return h('label.check', {}, input, label);
    };
    const slider = (label: string, key: keyof LinkSettings, max: number, step: number, unit: string) => {
      const value = h('span.value', {}, `${settings.link[key]} ${unit}`);
      const input = h('input', { type: 'range', name: key, min: '0', max: String(max), step: String(step) });
      input.value = String(settings.link[key]);
      input.addEventListener('input', () => {
        settings.link[key] = Number(input.value);
        value.textContent = `${input.value} ${unit}`;
        this.actions.setLink({ ...settings.link });
      });
      return h('label.slider', {}, h('span', {}, label), input, value);
    };
    const o = settings.overlays;
    const t = settings.toggles;
    this.root = h(
      'aside.net-panel',
      { hidden: true },
      h('h3', {}, 'Netcode'),
      this.figures,
      h('h4', {}, 'Overlays'),
      check(
        'interest radius',
        () => o.interest,
        (v) => (o.interest = v),
        'overlay-interest',
      ),
      check(
        'server ghosts',
        () => o.ghosts,
        (v) => (o.ghosts = v),
        'overlay-ghosts',
      ),
      check(
        'grid cells',
        () => o.grid,
        (v) => (o.grid = v),
        'overlay-grid',
      ),
      h('h4', {}, 'Link lab (each way)'),
      slider('latency', 'latencyMs', 500, 5, 'ms'),
      slider('jitter', 'jitterMs', 200, 5, 'ms'),
      slider('loss', 'lossPercent', 20, 1, '%'),
      slider('bandwidth (0: no cap)', 'bandwidthKbps', 512, 8, 'kbit/s'),
      h('p.hint', {}, 'Over TCP a lost packet is resent: loss shows as stalls, never as gaps.'),
      h('h4', {}, 'Techniques'),
      check(
        'interpolation',
        () => t.interpolation,
        (v) => (t.interpolation = v),
        'toggle-interpolation',
      ),
      check(
        'prediction',
        () => t.prediction,
        (v) => (t.prediction = v),
        'toggle-prediction',
      ),
      h('h4', {}, 'Packets in (frames · bytes)'),
      this.packets,
    );
  }

  get visible(): boolean {
    return !this.root.hidden;
  }

  toggle(): void {
    this.root.hidden = !this.root.hidden;
    if (!this.root.hidden && this.last) this.render(this.last.s, this.last.extra);
  }

  update(s: NetStatsSnapshot, extra: Record<string, string>): void {
    this.last = { s, extra };
    if (!this.root.hidden) this.render(s, extra);
  }

  private render(s: NetStatsSnapshot, extra: Record<string, string>): void {
    const rows: [string, string][] = [
      ['rtt', s.rttMs === undefined ? '–' : `${s.rttMs.toFixed(0)} ms`],
      ['tick rate', s.tickRate === undefined ? '–' : `${s.tickRate.toFixed(1)} Hz`],
      ['in', `${s.framesInPerSec.toFixed(0)} frames/s · ${kb(s.bytesInPerSec)}/s`],
      ['out', `${s.framesOutPerSec.toFixed(0)} frames/s · ${kb(s.bytesOutPerSec)}/s`],
      ['entities in view', String(s.entitiesInView)],
      ['arrival jitter', `${s.jitterMs.toFixed(0)} ms`],
      ['interpolation delay', `${s.interpolationDelayMs.toFixed(0)} ms`],
      ['corrected moves', String(s.correctedMoves)],
      ['unacked moves', String(s.pendingMoves)],
      ...Object.entries(extra),
    ];
    fill(this.figures, ...rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v))));
    const top = Object.entries(s.packetsIn)
      .sort((a, b) => b[1].frames - a[1].frames)
      .slice(0, 14);
    fill(
      this.packets,
      ...top.map(([name, c]) => h('tr', {}, h('th', {}, name), h('td', {}, `${c.frames} · ${kb(c.bytes)}`))),
    );
  }
}

function kb(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes.toFixed(0)} B`;
}
