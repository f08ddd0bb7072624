/** A zone packet's payload, as the gateway passed it on, decoded once into the world's input. */
import { describe, expect, it, vi } from 'vitest';
import { DecodeError } from '../../shared/codec/errors.js';
import { CastSpell, ChatSend, MoveInput } from '../../shared/protocol/index.js';
import { zoneInput, zoneInputs } from '../../server/zone/routes.js';

const move = { seq: 3, x: 10.5, y: 20, facing: 0, moving: true, speed: 120, clientTime: 5, epoch: 1 };
const payloadOf = (frame: Uint8Array) => frame.subarray(6);

describe('zone inputs', () => {
  it("decodes a MoveInput's payload straight into its world input: one object, made by the route", () => {
    const route = vi.spyOn(zoneInputs, 'MoveInput');
    try {
      const input = zoneInput(MoveInput, 40, payloadOf(MoveInput.encode(move)), 1234);
      expect(input).toEqual({ type: 'move', entityId: 40, receivedAt: 1234, ...move });
      // The payload's fields went into the object the route made: no object of the payload's own.
      expect(input).toBe(route.mock.results[0]!.value);
    } finally {
      route.mockRestore();
    }
  });

  it('makes every zone packet its own input', () => {
    expect(zoneInput(CastSpell, 7, payloadOf(CastSpell.encode({ spellId: 2, targetId: 9 })), 0)).toEqual({
      type: 'cast',
      entityId: 7,
      spellId: 2,
      targetId: 9,
    });
    expect(zoneInput(ChatSend, 7, payloadOf(ChatSend.encode({ channel: 'zone', text: 'hi' })), 25)).toEqual({
      type: 'chat',
      entityId: 7,
      channel: 'zone',
      text: 'hi',
      receivedAt: 25,
    });
  });

  it('throws what decoding the payload throws, for bytes cut short or one too many', () => {
    const whole = payloadOf(MoveInput.encode(move));
    for (const bytes of [whole.subarray(0, 10), Uint8Array.of(...whole, 0)]) {
      let expected: unknown;
      try {
        MoveInput.decode(bytes);
      } catch (err) {
        expected = err;
      }
      expect(expected).toBeInstanceOf(DecodeError);
      expect(() => zoneInput(MoveInput, 1, bytes, 0)).toThrow(expected as DecodeError);
      try {
        zoneInput(MoveInput, 1, bytes, 0);
      } catch (err) {
        expect((err as DecodeError).code).toBe((expected as DecodeError).code);
      }
    }
  });
});
