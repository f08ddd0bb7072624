import { describe, expect, it } from 'vitest';
import { disconnectText } from '../../web-client/src/state/disconnect.js';

describe('disconnectText', () => {
  it("says why from the server's Bye", () => {
    expect(disconnectText('1000: shutdown', { reason: 'shutdown', message: '' })).toMatch(/shutting down/);
    expect(disconnectText('closed', { reason: 'takenOver', message: '' })).toMatch(/somewhere else/);
    expect(disconnectText('closed', { reason: 'kicked', message: 'flooding' })).toBe(
      'The server removed you from the game (flooding).',
    );
  });

  it('passes on a fatal error, else names the lost connection', () => {
    expect(disconnectText('closed', undefined, 'Too many packets.')).toBe(
      'The server closed the connection: Too many packets.',
    );
    expect(disconnectText('1006: abnormal')).toBe('Lost the connection to the server (1006: abnormal).');
  });
});
