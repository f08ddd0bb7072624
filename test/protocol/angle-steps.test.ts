/**
 * Motion references are reckoned in coord steps from the cosine and sine of an angle step and,
 * along a path, from the angle step of each leg (quantizeAngle(atan2(dy, dx))). A client in
 * another language lands on the server's steps only if it takes the same numbers:
 *
 *   - cos and sin: libm's differ from V8's Math.cos and Math.sin in the last bit for some
 *     steps (glibc: 13 of 256), enough to move a reckoned position by a step now and then, so
 *     the generated C and Python codecs carry the server's values as tables;
 *   - atan2 of a leg: its dx and dy are whole coord steps (|dx|, |dy| ≤ 65535), and no such
 *     vector points within 2.5e-12 rad of a boundary between two angle steps, so any atan2
 *     good to far less than that (libm's is good to an ulp, ~1e-16 here) gives the server's
 *     step: no table is needed there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { quantizeAngle } from '../../shared/protocol/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STEP = (2 * Math.PI) / 256;

/** The numbers of a table in a generated source file, from `start` to the `end` after it. */
function table(path: string, start: string, end: string): number[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const from = text.indexOf(start);
  expect(from, `${start} in ${path}`).toBeGreaterThanOrEqual(0);
  const body = text.slice(from + start.length, text.indexOf(end, from + start.length));
  return body
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number);
}

describe('angle steps in the native clients', () => {
  const want = {
    cos: Array.from({ length: 256 }, (_, k) => Math.cos(k * STEP)),
    sin: Array.from({ length: 256 }, (_, k) => Math.sin(k * STEP)),
  };

  it("the C library's cos and sin tables are Math.cos and Math.sin of each step, bit for bit", () => {
    for (const f of ['cos', 'sin'] as const) {
      const got = table('clients/c/wyvern_packets.c', `const double wy_angle_${f}[256] = {`, '}');
      expect(got).toHaveLength(256);
      got.forEach((v, k) => expect(Object.is(v, want[f][k]), `wy_angle_${f}[${k}]`).toBe(true));
    }
  });

  it("the Python package's COS_STEPS and SIN_STEPS are Math.cos and Math.sin of each step, bit for bit", () => {
    for (const f of ['cos', 'sin'] as const) {
      const name = `${f.toUpperCase()}_STEPS`;
      const got = table('clients/python/wyvern_client/constants.py', `${name}: tuple[float, ...] = (`, ')');
      expect(got).toHaveLength(256);
      got.forEach((v, k) => expect(Object.is(v, want[f][k]), `${name}[${k}]`).toBe(true));
    }
  });

  it('no leg between whole coord steps points within 2.5e-12 rad of a rounding boundary between angle steps', () => {
    // The vectors and the boundaries, (k + 1/2) steps, are alike under the square's
    // symmetries (swapping x and y, flipping either sign), so the first octant says it all.
    // There, for each dx, the whole dy nearest a boundary's line are its floor and ceiling.
    const tolerance = 1e-12;
    let nearest = Infinity;
    let changed = 0;
    for (let k = 0; k < 32; k++) {
      const boundary = (k + 0.5) * STEP;
      const slope = Math.tan(boundary);
      for (let dx = 1; dx <= 65535; dx++) {
        const below = Math.floor(dx * slope);
        for (const dy of [below, below + 1]) {
          const a = Math.atan2(dy, dx);
          nearest = Math.min(nearest, Math.abs(a - boundary));
          const q = quantizeAngle(a);
          if (quantizeAngle(a - tolerance) !== q || quantizeAngle(a + tolerance) !== q) changed++;
        }
      }
    }
    expect(changed).toBe(0);
    expect(nearest).toBeGreaterThan(2.5e-12);
  });
});
