/** The load benchmark's outputs: markdown tables and a hand-written SVG chart. */

/** How the bots connect: tcp, WebSocket to a uws or ws engine, or half TCP half WebSocket (uws). */
export type Transport = 'tcp' | 'uws' | 'ws' | 'mix';

export interface StepResult {
  transport: Transport;
  n: number;
  inWorld: number;
  failedLogins: number;
  login: { seconds: number; perSecond: number; p50Ms: number | null; p99Ms: number | null };
  area: { x: number; y: number; w: number; h: number } | undefined;
  atHome: number;
  walking: number;
  holdSeconds: number;
  /**
   * A tick as clients get it: the zone host's tick plus the gateway's handling of its message
   * (the socket writes); p50, p99, max and mean are the two added. zoneP99Ms and flushP99Ms
   * are the parts.
   */
  tick: {
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    meanMs: number;
    count: number;
    intervalMs: number;
    zoneP99Ms?: number;
    flushP99Ms?: number;
  };
  server: {
    /** % of the one core it runs on. */
    cpuPercent: number;
    cpuPercentPerClient: number;
    rssMb: number;
    /** (RSS now - RSS of the idle server before any bot) / clients. */
    rssPerClientKb: number;
    /** (RSS now - RSS at the step before, or the idle baseline) / clients added: what one more client costs. */
    rssMarginalKb: number;
    heapUsedMb: number;
    heapPerClientKb: number;
    /** GC pause time per second of wall time (all kinds, and major only). */
    gcMsPerSecond: number;
    majorGcMsPerSecond: number;
    gcCount: number;
    droppedPackets: number;
    bytesOutPerSecond: number;
    bytesOutPerClient: number;
    framesOutPerSecond: number;
    /** Entity records encoded (once each, however many clients receive them). */
    recordsEncodedPerSecond: number;
  };
  latency: { p50: number | null; p90: number | null; p99: number | null; max: number | null; count: number };
  rttP50: number | null;
  rttP99: number | null;
  perClient: { bytesPerSecond: number; framesPerSecond: number };
  inView: { entities: number; players: number; mobs: number };
  moves: { sentPerSecond: number; duePerSecond: number; sentRatio: number };
  updates: {
    recordsPerSecond: number;
    movementPerSecond: number;
    recordsPerClientPerSecond: number;
    worldUpdatesPerClientPerSecond: number;
    bytesPerMovementUpdate: number | null;
    recordBytesPerMovementUpdate: number | null;
    bytesPerRecord: number | null;
    movementMix?: {
      move: { perClientPerSecond: number; bytes: number | null };
      path: { perClientPerSecond: number; bytes: number | null };
      spawnMotion: { perClientPerSecond: number; bytes: number | null };
    };
    matched: number;
    unmatched: number;
    bad: number;
    /** Entity records delivered per second of server CPU. */
    perServerCpuSecond: number | null;
  };
  errors: Record<string, number>;
  disconnects: number;
  corrections: number;
  botCpuPercent: number;
  botLoopLagP99Ms: number | null;
  /** CPU (% of a core) and RSS of each server-side process, the nats-server included. */
  processes?: { id: string; cpuPercent: number; rssMb: number }[];
  /** A MoveInput from its gateway's read to the zone host applying it (wyvern_move_input_delay_seconds). */
  moveInputDelay?: { p50Ms: number; p99Ms: number };
  /**
   * How long the players' inputs waited for their time beyond their least delayed one's
   * (wyvern_input_hold_seconds, over player-seconds): what watchers pay for movers' jitter.
   */
  inputHold?: { p50Ms: number; p99Ms: number };
  /** Why this step says nothing about the server: the bots were the bottleneck (empty: valid). */
  invalid: string[];
  /** Why this step is over the limits (empty: within them). */
  over: string[];
}

export interface RunResult {
  transport: Transport;
  /** `one` (one process), or `G+Z` gateways + zone hosts over NATS; absent in older runs: one. */
  layout?: string;
  /** The server's WebSocket engine in this run. */
  wsEngine: string;
  dense: boolean;
  steps: StepResult[];
  /** The largest valid N within the limits; 0 when none was. */
  capacity: number;
  /** With --profile: the server main thread's hottest functions, % of its busy time. */
  profile?: { name: string; where: string; selfPercent: number }[];
}

const f = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);

function verdict(s: StepResult): string {
  if (s.invalid.length > 0) return `INVALID: ${s.invalid.join('; ')}`;
  return s.over.length === 0 ? 'yes' : s.over.join('; ');
}

export function markdown(meta: Record<string, string>, runs: RunResult[]): string {
  const lines: string[] = ['# Wyvern load benchmark', ''];
  for (const [k, v] of Object.entries(meta)) lines.push(`- ${k}: ${v}`);
  lines.push('');
  lines.push(
    'Capacity: the largest valid N with tick p99 under the tick interval, move -> observer p99 <= 100 ms and every bot in the world. ' +
      'Invalid steps (the bots were the bottleneck) do not count.',
    '',
    'Design targets: >= 2,000 moving clients at move -> observer p99 <= 100 ms and tick p99 < 50 ms; ' +
      '500 clients <= 10% of the core; <= 2.5 KB/s per client; <= 8 bytes per movement update; <= 40 KB per client.',
    '',
  );
  for (const run of runs) {
    lines.push(
      `## ${run.transport}${run.layout && run.layout !== 'one' ? `, cluster ${run.layout} (gateways + zone hosts)` : ''} (WebSocket engine ${run.wsEngine})${run.dense ? ', dense: everyone in view' : ''}: capacity ${run.capacity}`,
      '',
      'Server:',
      '',
      '| N | in world | tick p50 / p99 / max ms (p99: zone host + gateway writes) | CPU % of core | CPU % per client | RSS MB | RSS KB per client (marginal) | heap KB per client | GC ms/s (major) | B/s out per client | records encoded/s | dropped |',
      '|---:|---:|---|---:|---:|---:|---|---:|---|---:|---:|---:|',
    );
    for (const s of run.steps) {
      const v = s.server;
      lines.push(
        `| ${s.n} | ${s.inWorld} | ${f(s.tick.p50Ms)} / ${f(s.tick.p99Ms)} / <=${f(s.tick.maxMs, 0)} (${f(s.tick.zoneP99Ms)} + ${f(s.tick.flushP99Ms)}) | ${f(v.cpuPercent)} | ${f(v.cpuPercentPerClient, 4)} | ` +
          `${f(v.rssMb, 0)} | ${f(v.rssPerClientKb)} (${f(v.rssMarginalKb)}) | ${f(v.heapPerClientKb)} | ${f(v.gcMsPerSecond)} (${f(v.majorGcMsPerSecond)}) | ` +
          `${f(v.bytesOutPerClient, 0)} | ${f(v.recordsEncodedPerSecond, 0)} | ${v.droppedPackets} |`,
      );
    }
    lines.push(
      '',
      'Clients (bots):',
      '',
      '| N | move -> observer p50 / p99 ms | rtt p50 ms | B/s per client | entity updates/s (per client) | updates per server CPU-s | B per movement update (record alone) | in view (players + mobs) | moves/s (of due) | errors | bot CPU % (loop lag p99 ms) | within limits |',
      '|---:|---|---:|---:|---|---:|---:|---|---|---:|---|---|',
    );
    for (const s of run.steps) {
      const errors = Object.values(s.errors).reduce((a, b) => a + b, 0) + s.disconnects;
      const u = s.updates;
      lines.push(
        `| ${s.n} | ${f(s.latency.p50)} / ${f(s.latency.p99)} | ${f(s.rttP50)} | ${f(s.perClient.bytesPerSecond, 0)} | ` +
          `${f(u.recordsPerSecond, 0)} (${f(u.recordsPerClientPerSecond)}) | ${f(u.perServerCpuSecond, 0)} | ${f(u.bytesPerMovementUpdate, 2)} (${f(u.recordBytesPerMovementUpdate, 2)}) | ` +
          `${f(s.inView.entities)} (${f(s.inView.players)} + ${f(s.inView.mobs)}) | ${f(s.moves.sentPerSecond, 0)} (${f(s.moves.sentRatio, 3)}) | ` +
          `${errors} | ${f(s.botCpuPercent, 0)} (${f(s.botLoopLagP99Ms)}) | ${verdict(s)} |`,
      );
    }
    const ids = run.steps.find((s) => (s.processes?.length ?? 0) > 0)?.processes?.map((p) => p.id);
    if (ids) {
      lines.push(
        '',
        "CPU % of the server core (RSS MB) by process, a MoveInput from its gateway to the zone host applying it (the next tick, the bus included), and the input hold (how much later than its least delayed input each player's inputs take effect, over player-seconds):",
        '',
        `| N | ${ids.join(' | ')} | move input delay p50 / p99 ms | input hold p50 / p99 ms |`,
        `|---:|${ids.map(() => '---:|').join('')}---|---|`,
      );
      for (const s of run.steps) {
        const cells = ids.map((id) => {
          const p = s.processes?.find((x) => x.id === id);
          return p ? `${f(p.cpuPercent)} (${f(p.rssMb, 0)})` : '-';
        });
        lines.push(
          `| ${s.n} | ${cells.join(' | ')} | ${f(s.moveInputDelay?.p50Ms)} / ${f(s.moveInputDelay?.p99Ms)} | ${f(s.inputHold?.p50Ms)} / ${f(s.inputHold?.p99Ms)} |`,
        );
      }
    }
    if (run.steps.some((s) => s.updates.movementMix)) {
      lines.push(
        '',
        'Movement records per client per second (average bytes, id delta included): states (players stopping, starting, turning, heartbeats; mobs standing), mob paths, and of both the motion half of spawn blocks:',
        '',
        '| N | states | paths | in spawn blocks |',
        '|---:|---|---|---|',
      );
      for (const s of run.steps) {
        const m = s.updates.movementMix;
        if (!m) continue;
        lines.push(
          `| ${s.n} | ${f(m.move.perClientPerSecond)} (${f(m.move.bytes, 2)} B) | ${f(m.path.perClientPerSecond)} (${f(m.path.bytes, 2)} B) | ${f(m.spawnMotion.perClientPerSecond)} (${f(m.spawnMotion.bytes, 2)} B) |`,
        );
      }
    }
    if (run.profile && run.profile.length > 0) {
      lines.push(
        '',
        "Server profile (--cpu-prof over the whole run, logins included; the main thread's hottest functions by self time, % of its busy time; writeBuffer is the socket write, kernel time included):",
        '',
        '| % busy | function | where |',
        '|---:|---|---|',
        ...run.profile.map((fn) => `| ${f(fn.selfPercent)} | ${fn.name} | ${fn.where || '(native)'} |`),
      );
    }
    lines.push('');
  }
  lines.push(
    "Tick: the zone host's tick (wyvern_tick_seconds) plus the gateway's handling of its message, which makes the tick's socket writes (wyvern_gateway_batch_seconds); their p50s and p99s are added, an upper bound for the whole.",
    '',
    'Bytes per movement update: WorldUpdate bytes (frame header, tick and time, records) less the bytes of spawn, ' +
      "despawn, health, death and respawn records, divided by the move and path records received: all overhead is charged to movement. In brackets: the move and path records' own bytes alone.",
    '',
  );
  return lines.join('\n');
}

const COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/**
 * Latency p99 and tick p99 against N, one line pair per run; log-scaled N axis. An invalid
 * step (the bots were the bottleneck) is drawn as a hollow point.
 */
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
        name: `${run.transport}${run.layout && run.layout !== 'one' ? ` ${run.layout}` : ''} latency p99`,
        dash: '',
        pts: run.steps.map((s) => [s.n, s.latency.p99 ?? NaN, s.invalid.length > 0] as const),
      },
      {
        name: `${run.transport}${run.layout && run.layout !== 'one' ? ` ${run.layout}` : ''} tick p99`,
        dash: '5 3',
        pts: run.steps.map((s) => [s.n, s.tick.p99Ms, s.invalid.length > 0] as const),
      },
    ];
    for (const s of series) {
      const pts = s.pts.filter(([, v]) => Number.isFinite(v));
      if (pts.length === 0) continue;
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ''} points="${pts.map(([n, v]) => `${x(n).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [n, v, invalid] of pts)
        out.push(
          `<circle cx="${x(n).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${invalid ? 'white' : color}" stroke="${color}"/>`,
        );
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
