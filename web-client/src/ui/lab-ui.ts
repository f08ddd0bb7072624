/**
 * The lab page's DOM: three panes side by side (player A, the server, player B), each with a
 * view for its renderer; under each player its link settings, technique switches, driver,
 * figures and live plots. Changes go straight into the player's settings objects.
 */
import type { Driver, LabPlayer } from '../net/lab-player.js';
import type { LinkSettings } from '../state/link-lab.js';
import type { ErrorFigures } from '../state/truth.js';
import { h, fill } from './dom.js';
import { Plot } from './plot.js';

export interface LinkPreset {
  name: string;
  link: LinkSettings;
}

export const LINK_PRESETS: readonly LinkPreset[] = [
  { name: 'clean', link: { latencyMs: 0, jitterMs: 0, lossPercent: 0, bandwidthKbps: 0 } },
  { name: '100 ms + 5% loss', link: { latencyMs: 100, jitterMs: 0, lossPercent: 5, bandwidthKbps: 0 } },
  { name: '200±50 ms + 5% loss', link: { latencyMs: 200, jitterMs: 50, lossPercent: 5, bandwidthKbps: 0 } },
  { name: '150±100 ms jitter', link: { latencyMs: 150, jitterMs: 100, lossPercent: 0, bandwidthKbps: 0 } },
  { name: '32 kbit/s cap', link: { latencyMs: 40, jitterMs: 0, lossPercent: 0, bandwidthKbps: 32 } },
];

/** Both players' links at once: the classic cases, a bad link on either side or on both. */
export interface SidePreset {
  name: string;
  a: LinkPreset;
  b: LinkPreset;
}

const CLEAN = LINK_PRESETS[0]!;
/** The bad link of the side presets: 200±50 ms and 5% loss each way. */
const BAD = LINK_PRESETS[2]!;

export const SIDE_PRESETS: readonly SidePreset[] = [
  { name: 'both clean', a: CLEAN, b: CLEAN },
  { name: 'A bad, B clean', a: BAD, b: CLEAN },
  { name: 'A clean, B bad', a: CLEAN, b: BAD },
  { name: 'both bad', a: BAD, b: BAD },
];

export interface PlayerControls {
  root: HTMLElement;
  view: HTMLElement;
  plots: Plot[];
  /** Redraws the figures table and the plots. */
  update(localNow: number): void;
}

export function playerPane(p: LabPlayer, actions: { replay(): void }): PlayerControls {
  const role = p.role;
  const view = h('div.lab-view', { 'data-view': role });
  const figures = h('table.lab-figures');
  const sliders: { key: keyof LinkSettings; input: HTMLInputElement; value: HTMLElement; unit: string }[] =
    [];
  const preset = h(
    'select',
    { name: `preset-${role}`, title: 'Link preset' },
    ...LINK_PRESETS.map((l, i) => h('option', { value: String(i) }, l.name)),
    h('option', { value: 'custom' }, 'custom'),
  );
  const showLink = () => {
    for (const s of sliders) {
      s.input.value = String(p.link[s.key]);
      s.value.textContent = `${p.link[s.key]} ${s.unit}`;
    }
    const i = LINK_PRESETS.findIndex((l) => sameLink(l.link, p.link));
    preset.value = i >= 0 ? String(i) : 'custom';
  };
  preset.addEventListener('change', () => {
    const l = LINK_PRESETS[Number(preset.value)];
    if (l) p.setLink(l.link);
    showLink();
  });
  const slider = (
    label: string,
    key: keyof LinkSettings,
    max: number,
    step: number,
    unit: string,
    title = `${label}, each way`,
  ) => {
    const value = h('span.value', {}, '');
    const input = h('input', {
      type: 'range',
      name: `${key}-${role}`,
      min: '0',
      max: String(max),
      step: String(step),
    });
    input.addEventListener('input', () => {
      p.setLink({ ...p.link, [key]: Number(input.value) });
      showLink();
    });
    sliders.push({ key, input, value, unit });
    return h('label.slider', { title }, h('span', {}, label), input, value);
  };
  const check = (
    label: string,
    name: string,
    get: () => boolean,
    set: (v: boolean) => void,
    title: string,
  ) => {
    const input = h('input', { type: 'checkbox', name: `${name}-${role}`, checked: get() });
    input.addEventListener('change', () => set(input.checked));
    return h('label.check', { title }, input, label);
  };
  const clock = p.world.clock;
  const delayValue = h('span.value', {}, 'auto');
  const delay = h('input', { type: 'range', name: `delay-${role}`, min: '0', max: '1000', step: '10' });
  delay.value = '100';
  delay.disabled = true;
  const adaptive = h('input', { type: 'checkbox', name: `adaptive-${role}`, checked: true });
  const applyDelay = () => {
    delay.disabled = adaptive.checked;
    clock.fixedDelayMs = adaptive.checked ? undefined : Number(delay.value);
    if (clock.fixedDelayMs !== undefined) clock.delayMs = clock.fixedDelayMs;
    delayValue.textContent = adaptive.checked ? 'auto' : `${delay.value} ms`;
  };
  adaptive.addEventListener('change', applyDelay);
  delay.addEventListener('input', applyDelay);
  const driver = h(
    'select',
    { name: `driver-${role}`, title: 'What moves this player' },
    h('option', { value: 'script' }, 'scripted square'),
    h('option', { value: 'keys' }, role === 'A' ? 'keys: WASD' : 'keys: arrows'),
    h('option', { value: 'stand' }, 'stand still'),
  );
  driver.value = p.driver;
  driver.addEventListener('change', () => {
    p.driver = driver.value as Driver;
    if (p.driver === 'script') actions.replay();
    else p.script.stop();
  });

  const s = p.series;
  const plots = [
    new Plot(s.rtt, { label: 'RTT', unit: 'ms', colour: '#3dd6ff', floor: 50 }),
    new Plot(s.jitter, {
      label: 'arrival jitter',
      unit: 'ms',
      colour: '#ffe066',
      floor: 50,
      second: { series: s.delay, colour: '#a0e07a', label: 'delay' },
    }),
    new Plot(s.buffer, { label: 'interpolation buffer', unit: 'ms', colour: '#a0e07a', floor: 100 }),
    new Plot(s.bytesIn, {
      label: 'bytes/s in / out',
      unit: 'B/s',
      colour: '#c7a0ff',
      floor: 200,
      second: { series: s.bytesOut, colour: '#ff9fd0', label: 'out' },
    }),
    new Plot(s.corrections, { label: 'corrections/s', unit: '/s', colour: '#ff4d6d', floor: 1, digits: 1 }),
    new Plot(p.truth.series, { label: 'drawn error', unit: 'u', colour: '#ff6bff', floor: 4, digits: 1 }),
  ];

  const title = `Player ${role}`;
  const root = h(
    'section.lab-pane.lab-player',
    { 'data-role': role },
    h('h2', {}, h('span.role', { 'data-role': role }, title), h('span.who', {}, ` ${p.options.character}`)),
    view,
    // The controls first, right under the view: a link is changed while the views are watched.
    h(
      'div.lab-controls',
      {},
      h(
        'div.lab-row',
        {},
        h('label.pick', { title: 'Link preset, each way' }, h('span', {}, 'link'), preset),
        h('label.pick', { title: 'What moves this player' }, h('span', {}, 'driver'), driver),
        h(
          'button',
          { type: 'button', name: `replay-${role}`, onclick: () => actions.replay() },
          'replay walk',
        ),
      ),
      h(
        'div.lab-sliders',
        {},
        slider('latency', 'latencyMs', 500, 5, 'ms'),
        slider('jitter', 'jitterMs', 200, 5, 'ms'),
        slider('loss', 'lossPercent', 20, 1, '%'),
        slider('bandwidth', 'bandwidthKbps', 512, 8, 'kbit/s', 'Bandwidth cap; 0: none'),
      ),
      h(
        'div.lab-row',
        {},
        check(
          'prediction',
          'prediction',
          () => p.world.toggles.prediction,
          (v) => (p.world.toggles.prediction = v),
          'Off: the own character is drawn where the server last agreed it is.',
        ),
        check(
          'reconciliation',
          'reconciliation',
          () => p.reconcile,
          (v) => (p.reconcile = v),
          'Off: each acknowledgement puts the character back where that input had it.',
        ),
        check(
          'interpolation',
          'interpolation',
          () => p.world.toggles.interpolation,
          (v) => (p.world.toggles.interpolation = v),
          'Off: others are drawn at the newest state, dead-reckoned, as it arrives.',
        ),
      ),
      h(
        'div.lab-sliders',
        {},
        h('label.slider', { title: 'Interpolation delay' }, h('span', {}, 'delay'), delay, delayValue),
        h(
          'label.check',
          { title: 'The delay follows the measured arrival jitter' },
          adaptive,
          'adaptive delay',
        ),
      ),
    ),
    figures,
    h('div.lab-plots', {}, ...plots.map((pl) => pl.root)),
  );
  showLink();

  return {
    root,
    view,
    plots,
    update(localNow: number) {
      const other = p.watchId !== undefined ? p.world.entities.get(p.watchId) : undefined;
      const m = p.meter;
      const rows: [string, string][] = [
        ['status', p.status],
        [
          'interpolation delay',
          `${clock.delayMs.toFixed(0)} ms${clock.fixedDelayMs === undefined ? ' (adaptive)' : ''}`,
        ],
        ['arrival jitter', `${clock.jitterMs.toFixed(0)} ms`],
        ['corrections', String(p.world.self?.predictor.corrections ?? 0)],
        [
          `${other?.name ?? 'other player'}: frame steps > 3 u`,
          `${m.over} of ${m.frames} (largest ${m.max.toFixed(1)} u per 1/60 s)`,
        ],
        [
          'link',
          p.connection ? `${p.connection.lab.up.lost + p.connection.lab.down.lost} messages resent` : '–',
        ],
        ['drawn error (10 s)', errorText(p.truth.figures())],
        ['overshoot at stops', overshootText(p.truth.figures())],
      ];
      fill(figures, ...rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v))));
      // The link may have been set from elsewhere (a preset, the test hook).
      if (document.activeElement?.closest('.lab-controls') !== root.querySelector('.lab-controls'))
        showLink();
      for (const pl of plots) pl.draw(localNow);
    },
  };
}

export function serverPane(): { root: HTMLElement; view: HTMLElement; info: HTMLElement } {
  const view = h('div.lab-view', { 'data-view': 'server' });
  const info = h('p.lab-info', {}, '');
  const root = h(
    'section.lab-pane.lab-server',
    {},
    h('h2', {}, 'Server', h('span.who', {}, ' (authoritative)')),
    view,
    info,
    h(
      'p.hint',
      {},
      'Two players on the real server, each through its own simulated link. ',
      'Player A walks a square (or WASD), player B watches (or arrows). ',
      'Change a link or switch a technique off, then replay the walk.',
    ),
    h(
      'p.hint',
      {},
      'What the server holds true around player A, every tick, from its lab feed: a player is ',
      'where its newest accepted input put it (four a second while it walks). ',
      'Player A predicts ahead of it; player B interpolates behind it. ',
      'White ring: a player\u2019s server-confirmed position. Red cross and arrow: a correction and its snap. ',
      'Dots: where the watched player was drawn each frame (a gap is a jump). ',
      'Magenta ring and line: a player drew an entity more than 2 units from where the server had it ',
      'at the time drawn (its drawn error, judged once the server’s record covers that time).',
    ),
  );
  return { root, view, info };
}

function errorText(f: ErrorFigures): string {
  if (f.samples === 0) return 'waiting for the server’s record';
  return `p50 ${f.p50.toFixed(1)} · p99 ${f.p99.toFixed(1)} · max ${f.max.toFixed(1)} u`;
}

function overshootText(f: ErrorFigures): string {
  const backs = `${f.slideBacks} slide-back${f.slideBacks === 1 ? '' : 's'} > 1 u`;
  if (f.stops === 0) return `no stop drawn · ${backs}`;
  return `max ${f.overshoot.toFixed(1)} u over ${f.stops} stop${f.stops === 1 ? '' : 's'} · ${backs}`;
}

function sameLink(a: LinkSettings, b: LinkSettings): boolean {
  return (
    a.latencyMs === b.latencyMs &&
    a.jitterMs === b.jitterMs &&
    a.lossPercent === b.lossPercent &&
    a.bandwidthKbps === b.bandwidthKbps
  );
}
