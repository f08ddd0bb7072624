import { describe, expect, it } from 'vitest';
import { histogram, quantile, total } from '../../tools/net/prometheus.js';
import { cpuSeconds, layoutName, parseLayout, rssBytes, sumMetrics } from '../../bench/load/servers.js';

describe('bench:load server layouts', () => {
  it('reads one and G+Z, and refuses anything else', () => {
    expect(parseLayout('one')).toEqual({ gateways: 0, zoneHosts: 0 });
    expect(parseLayout('2+1')).toEqual({ gateways: 2, zoneHosts: 1 });
    expect(layoutName(parseLayout('2+1'))).toBe('2+1');
    for (const bad of ['', 'two', '0+1', '1+0', '1+', '+1', '1-1'])
      expect(() => parseLayout(bad), bad).toThrow(/expected one, or G\+Z/);
  });

  it('sums the metrics of several processes series by series, histograms included', () => {
    const a = [
      'process_cpu_seconds_total 1.5',
      'wyvern_gateway_batch_seconds_bucket{le="0.001"} 10',
      'wyvern_gateway_batch_seconds_bucket{le="0.01"} 20',
      'wyvern_gateway_batch_seconds_bucket{le="+Inf"} 20',
      'wyvern_gateway_batch_seconds_count 20',
      'wyvern_gateway_batch_seconds_sum 0.05',
    ].join('\n');
    const b = a.replace('1.5', '2').replace('} 10', '} 0');
    const s = sumMetrics([a, b]);
    expect(total(s, 'process_cpu_seconds_total')).toBe(3.5);
    const h = histogram(s, 'wyvern_gateway_batch_seconds');
    // One bucket row per bound (not one per process), with the counts added.
    expect(h.le).toEqual([0.001, 0.01, Infinity]);
    expect(h.counts).toEqual([10, 40, 40]);
    expect(quantile(h, 0.25)).toBe(0.001);
  });

  it("reads a process's CPU time and RSS from /proc", () => {
    const before = cpuSeconds(process.pid);
    let x = 0;
    for (let i = 0; i < 5e7; i++) x += i;
    expect(x).toBeGreaterThan(0);
    expect(cpuSeconds(process.pid)).toBeGreaterThan(before);
    expect(rssBytes(process.pid)).toBeGreaterThan(10 * 2 ** 20);
    expect(cpuSeconds(2 ** 30)).toBeNaN();
  });
});
