import { describe, expect, it } from 'vitest';
import { Writer } from '../../shared/codec/writer.js';

describe('Writer.rawRange', () => {
  it('appends a range of another buffer, short or long, growing as needed', () => {
    const src = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    const w = new Writer(8);
    w.u8(0xaa);
    w.rawRange(src, 3, 10);
    w.rawRange(src, 20, 260);
    const out = w.finish();
    expect(out.length).toBe(1 + 7 + 240);
    expect(Array.from(out.subarray(1, 8))).toEqual(Array.from(src.subarray(3, 10)));
    expect(Array.from(out.subarray(8))).toEqual(Array.from(src.subarray(20, 260)));
  });
});
