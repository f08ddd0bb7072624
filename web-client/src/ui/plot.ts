/**
 * A small live plot on a 2D canvas: one series over its time span, a label and the current
 * value. The scale's top is the larger of `floor` and the series' peak, so a quiet figure
 * stays flat and a spike shows its size.
 */
import type { Series } from '../state/lab.js';
import { h } from './dom.js';

export interface PlotSpec {
  label: string;
  unit: string;
  colour: string;
  /** The least top of the scale. */
  floor: number;
  /** Digits after the point in the value shown. */
  digits?: number;
  /** A second series drawn dashed beside the first (bytes out beside bytes in). */
  second?: { series: Series; colour: string; label: string };
}

export class Plot {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly value: HTMLElement;
  drawn = 0;

  constructor(
    private readonly series: Series,
    readonly spec: PlotSpec,
  ) {
    this.canvas = h('canvas.plot', { width: 220, height: 44 });
    this.value = h('span.plot-value', {}, '–');
    this.root = h(
      'figure.plot',
      { 'data-plot': spec.label },
      h('figcaption', {}, h('span', { style: { color: spec.colour } }, spec.label), this.value),
      this.canvas,
    );
  }

  draw(localNow: number): void {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    const { width, height } = this.canvas;
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = 'rgba(255,255,255,0.04)';
    ctx.fillRect(0, 0, width, height);
    const second = this.spec.second;
    const top = Math.max(this.spec.floor, this.series.max(), second ? second.series.max() : 0) * 1.1;
    const line = (s: Series, colour: string, dashed: boolean) => {
      if (s.values.length === 0) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1.5;
      ctx.setLineDash(dashed ? [4, 3] : []);
      ctx.beginPath();
      s.values.forEach((v, i) => {
        const x = width - ((localNow - (s.times[i] as number)) / s.spanMs) * width;
        const y = height - 2 - (v / top) * (height - 4);
        if (i === 0) ctx.moveTo(x, y);
        else ctx.lineTo(x, y);
      });
      ctx.stroke();
    };
    if (second) line(second.series, second.colour, true);
    line(this.series, this.spec.colour, false);
    ctx.setLineDash([]);
    ctx.fillStyle = 'rgba(255,255,255,0.45)';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(`${top.toFixed(top < 10 ? 1 : 0)} ${this.spec.unit}`, 3, 10);
    const d = this.spec.digits ?? 0;
    const v = this.series.last;
    const w = second?.series.last;
    this.value.textContent =
      v === undefined
        ? '–'
        : `${v.toFixed(d)}${w !== undefined ? ` / ${w.toFixed(d)}` : ''} ${this.spec.unit}`;
    this.drawn++;
  }
}
