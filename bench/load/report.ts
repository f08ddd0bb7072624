/** The load benchmark's outputs: a markdown table and a hand-written SVG chart. */

export interface StepResult {
  transport: string;
  n: number;
  inWorld: number;
  failedLogins: number;
  login: { seconds: number; perSecond: number; p50Ms: number | null; p99Ms: number | null };
  area: { x: number; y: number; w: number; h: number } | undefined;
  atHome: number;
  holdSeconds: number;
  tick: { p50Ms: number; p99Ms: number; maxMs: number; meanMs: number; count: number; intervalMs: number };
  server: {
    cpuPercent: number;
    rssMb: number;
    droppedPackets: number;
    bytesOutPerSecond: number;
    framesOutPerSecond: number;
  };
  latency: { p50: number | null; p90: number | null; p99: number | null; max: number | null; count: number };
  rttP50: number | null;
  rttP99: number | null;
  perClient: { bytesPerSecond: number; framesPerSecond: number };
  inView: { entities: number; players: number; mobs: number };
  movesPerSecond: number;
  entityMovesPerSecond: number;
  errors: Record<string, number>;
  disconnects: number;
  botCpuPercent: number;
  /** Why this step is over the limit (empty: within it). */
  over: string[];
}

export interface RunResult {
  transport: string;
  dense: boolean;
  steps: StepResult[];
  /** The largest N within the limits; 0 when none was. */
  capacity: number;
}

const f = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);

export function markdown(meta: Record<string, string>, runs: RunResult[]): string {
  const lines: string[] = ['# Wyvern load benchmark', ''];
  for (const [k, v] of Object.entries(meta)) lines.push(`- ${k}: ${v}`);
  lines.push('');
  lines.push(
    'Capacity: the largest N with tick p99 under the tick interval, move -> observer p99 <= 100 ms and every bot in the world.',
  );
  lines.push('');
  for (const run of runs) {
    lines.push(
      `## ${run.transport}${run.dense ? ' (dense: everyone in view)' : ''}: capacity ${run.capacity}`,
      '',
    );
    lines.push(
      '| N | in world | tick p50 / p99 / max ms | server CPU % | RSS MB | latency p50 / p99 ms | rtt p50 ms | B/s per client | frames/s per client | in view (players + mobs) | dropped | errors | bot CPU % | within |',
    );
    lines.push('|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---|');
    for (const s of run.steps) {
      const errors = Object.values(s.errors).reduce((a, b) => a + b, 0) + s.disconnects;
      lines.push(
        `| ${s.n} | ${s.inWorld} | ${f(s.tick.p50Ms)} / ${f(s.tick.p99Ms)} / <=${f(s.tick.maxMs, 0)} | ${f(s.server.cpuPercent, 0)} | ${f(s.server.rssMb, 0)} | ` +
          `${f(s.latency.p50)} / ${f(s.latency.p99)} | ${f(s.rttP50)} | ${f(s.perClient.bytesPerSecond, 0)} | ${f(s.perClient.framesPerSecond, 0)} | ` +
          `${f(s.inView.entities)} (${f(s.inView.players)} + ${f(s.inView.mobs)}) | ${s.server.droppedPackets} | ${errors} | ${f(s.botCpuPercent, 0)} | ${s.over.length === 0 ? 'yes' : s.over.join('; ')} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

const COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/** Latency p99 and tick p99 against N, one line pair per run; log-scaled N axis. */
export function svgChart(runs: RunResult[], intervalMs: number): string {
  const W = 760;
  const H = 420;
  const m = { l: 60, r: 200, t: 30, b: 50 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const ns = runs.flatMap((r) => r.steps.map((s) => s.n));
  const ys = runs.flatMap((r) => r.steps.flatMap((s) => [s.latency.p99 ?? 0, s.tick.p99Ms]));
  const nMin = Math.min(...ns, 100);
  const nMax = Math.max(...ns, nMin * 2);
  const yMax = Math.max(120, ...ys.filter(Number.isFinite)) * 1.1;
  const x = (n: number) => m.l + ((Math.log(n) - Math.log(nMin)) / (Math.log(nMax) - Math.log(nMin))) * pw;
  const y = (v: number) => m.t + ph - (Math.min(v, yMax) / yMax) * ph;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${m.l}" y="18" font-size="14">Wyvern load: p99 move -> observer latency and p99 tick time against clients</text>`,
    `<line x1="${m.l}" y1="${m.t + ph}" x2="${m.l + pw}" y2="${m.t + ph}" stroke="black"/>`,
    `<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${m.t + ph}" stroke="black"/>`,
  ];
  for (const n of [...new Set(ns)].sort((a, b) => a - b)) {
    out.push(`<line x1="${x(n)}" y1="${m.t + ph}" x2="${x(n)}" y2="${m.t + ph + 5}" stroke="black"/>`);
    out.push(`<text x="${x(n)}" y="${m.t + ph + 18}" text-anchor="middle">${n}</text>`);
  }
  out.push(`<text x="${m.l + pw / 2}" y="${H - 10}" text-anchor="middle">concurrent clients (N)</text>`);
  const step = yMax > 400 ? 100 : yMax > 200 ? 50 : 20;
  for (let v = 0; v <= yMax; v += step) {
    out.push(`<line x1="${m.l - 5}" y1="${y(v)}" x2="${m.l + pw}" y2="${y(v)}" stroke="#ddd"/>`);
    out.push(`<text x="${m.l - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  out.push(
    `<text x="16" y="${m.t + ph / 2}" transform="rotate(-90 16 ${m.t + ph / 2})" text-anchor="middle">ms</text>`,
  );
  const limit = (v: number, label: string) => {
    out.push(
      `<line x1="${m.l}" y1="${y(v)}" x2="${m.l + pw}" y2="${y(v)}" stroke="#888" stroke-dasharray="6 4"/>`,
    );
    out.push(`<text x="${m.l + pw - 4}" y="${y(v) - 4}" text-anchor="end" fill="#555">${label}</text>`);
  };
  limit(100, 'latency limit 100 ms');
  limit(intervalMs, `tick interval ${intervalMs} ms`);
  let legendY = m.t + 10;
  runs.forEach((run, i) => {
    const color = COLORS[i % COLORS.length]!;
    const series = [
      {
        name: `${run.transport} latency p99`,
        dash: '',
        pts: run.steps.map((s) => [s.n, s.latency.p99 ?? NaN] as const),
      },
      {
        name: `${run.transport} tick p99`,
        dash: '5 3',
        pts: run.steps.map((s) => [s.n, s.tick.p99Ms] as const),
      },
    ];
    for (const s of series) {
      const pts = s.pts.filter(([, v]) => Number.isFinite(v));
      if (pts.length === 0) continue;
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ''} points="${pts.map(([n, v]) => `${x(n).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [n, v] of pts)
        out.push(`<circle cx="${x(n).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"/>`);
      out.push(
        `<line x1="${m.l + pw + 15}" y1="${legendY}" x2="${m.l + pw + 40}" y2="${legendY}" stroke="${color}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ''}/>`,
      );
      out.push(`<text x="${m.l + pw + 45}" y="${legendY + 4}">${s.name}</text>`);
      legendY += 18;
    }
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
