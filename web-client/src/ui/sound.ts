/**
 * Short sound effects synthesized with WebAudio (oscillators and gain envelopes: no files to
 * download). The AudioContext is made at the first cue after a key press or click (browsers
 * keep audio shut until the person has done something on the page) and reused.
 *
 * `play(cue)` is the one way in: the page calls it for what it hears (state/sound-cues.ts),
 * and anything else that wants a sound (a level-up) calls it the same way.
 */
import type { Prefs } from '../state/prefs.js';
import { ChangeCues, CueGate, cueForPacket, type Cue } from '../state/sound-cues.js';
import type { ClientWorld, Incoming } from '../state/world.js';

/** One tone: a waveform gliding from one pitch to another under a short attack-decay envelope. */
interface Tone {
  type: OscillatorType;
  from: number;
  to: number;
  /** Start after the cue, and length, in seconds. */
  at: number;
  length: number;
  gain: number;
}

const RECIPES: Record<Cue, Tone[]> = {
  // A rising whoosh as the spell leaves.
  cast: [{ type: 'triangle', from: 420, to: 980, at: 0, length: 0.16, gain: 0.18 }],
  // A dull thud.
  hit: [
    { type: 'square', from: 190, to: 70, at: 0, length: 0.09, gain: 0.12 },
    { type: 'sine', from: 110, to: 50, at: 0, length: 0.12, gain: 0.25 },
  ],
  // A long fall.
  death: [
    { type: 'sawtooth', from: 320, to: 55, at: 0, length: 0.7, gain: 0.12 },
    { type: 'sine', from: 160, to: 40, at: 0.05, length: 0.8, gain: 0.2 },
  ],
  // A rising major arpeggio.
  levelUp: [
    { type: 'triangle', from: 523, to: 523, at: 0, length: 0.14, gain: 0.2 },
    { type: 'triangle', from: 659, to: 659, at: 0.1, length: 0.14, gain: 0.2 },
    { type: 'triangle', from: 784, to: 784, at: 0.2, length: 0.14, gain: 0.2 },
    { type: 'triangle', from: 1047, to: 1047, at: 0.3, length: 0.35, gain: 0.22 },
  ],
  // Two soft bells.
  whisper: [
    { type: 'sine', from: 880, to: 880, at: 0, length: 0.18, gain: 0.15 },
    { type: 'sine', from: 1320, to: 1320, at: 0.12, length: 0.25, gain: 0.12 },
  ],
};

export class Sound {
  private context: AudioContext | undefined;
  private readonly gate = new CueGate();
  /** Cues played, newest last (the page shows them to tests). */
  readonly played: Cue[] = [];
  private readonly listeners = new Set<(muted: boolean) => void>();

  constructor(private readonly prefs: Prefs) {
    // Browsers let audio start only from a person's gesture: resume there.
    const unlock = () => void this.context?.resume().catch(() => undefined);
    window.addEventListener('keydown', unlock, { capture: true });
    window.addEventListener('pointerdown', unlock, { capture: true });
  }

  get muted(): boolean {
    return this.prefs.muted;
  }

  set muted(on: boolean) {
    this.prefs.muted = on;
    for (const l of this.listeners) l(on);
  }

  toggleMute(): void {
    this.muted = !this.muted;
  }

  onMuteChange(listener: (muted: boolean) => void): void {
    this.listeners.add(listener);
  }

  play(cue: Cue): void {
    if (this.muted || !this.gate.pass(cue, performance.now())) return;
    const ctx = this.audio();
    if (!ctx) return;
    this.played.push(cue);
    if (this.played.length > 50) this.played.shift();
    const t0 = ctx.currentTime + 0.01;
    for (const tone of RECIPES[cue]) {
      const osc = ctx.createOscillator();
      const env = ctx.createGain();
      osc.type = tone.type;
      const start = t0 + tone.at;
      const end = start + tone.length;
      osc.frequency.setValueAtTime(tone.from, start);
      if (tone.to !== tone.from) osc.frequency.exponentialRampToValueAtTime(tone.to, end);
      env.gain.setValueAtTime(0.0001, start);
      env.gain.exponentialRampToValueAtTime(tone.gain, start + 0.01);
      env.gain.exponentialRampToValueAtTime(0.0001, end);
      osc.connect(env).connect(ctx.destination);
      osc.start(start);
      osc.stop(end + 0.02);
    }
  }

  private audio(): AudioContext | undefined {
    if (this.context) return this.context;
    const Ctor = globalThis.AudioContext as typeof AudioContext | undefined;
    if (!Ctor) return undefined;
    try {
      this.context = new Ctor();
    } catch {
      return undefined;
    }
    return this.context;
  }
}

/**
 * Plays the cues of what the page hears: world changes (deaths) as they happen, and packets
 * (and the own level rising, however the news came) through the returned function, called
 * with each packet the page has applied.
 */
export function soundCues(sound: Sound, world: ClientWorld): (p: Incoming) => void {
  const changes = new ChangeCues();
  world.view.onChange((c) => {
    const cue = changes.cue(c, world.self?.id);
    if (cue) sound.play(cue);
  });
  return (p) => {
    const cue = cueForPacket(p, world.self?.id) ?? changes.levelNow(world.selfEntity()?.level);
    if (cue) sound.play(cue);
  };
}
