import { describe, expect, it } from 'vitest';
import { queueReporter } from '../../server/session/account.js';

/** A reporter on a hand-driven clock; `sent` collects the positions it let through. */
function reporter(minIntervalMs = 250) {
  let now = 0;
  const sent: number[] = [];
  const report = queueReporter(
    (position) => sent.push(position),
    minIntervalMs,
    () => now,
  );
  return {
    sent,
    at(ms: number, position: number, length = 200) {
      now = ms;
      report(position, length);
    },
  };
}

describe('LoginQueue throttle', () => {
  it('sends the first position at once', () => {
    const r = reporter();
    r.at(0, 150);
    expect(r.sent).toEqual([150]);
  });

  it('skips small moves within the interval and sends the next one after it', () => {
    const r = reporter();
    r.at(0, 150);
    r.at(10, 149);
    r.at(100, 140);
    r.at(249, 130);
    r.at(250, 129);
    expect(r.sent).toEqual([150, 129]);
  });

  it('sends at once when the position at least halved', () => {
    const r = reporter();
    r.at(0, 10);
    r.at(5, 6);
    r.at(6, 5);
    r.at(7, 2);
    r.at(8, 1);
    expect(r.sent).toEqual([10, 5, 2, 1]);
  });

  it('never repeats an unchanged position', () => {
    const r = reporter();
    r.at(0, 7);
    r.at(1_000, 7);
    r.at(2_000, 7);
    expect(r.sent).toEqual([7]);
  });
});
