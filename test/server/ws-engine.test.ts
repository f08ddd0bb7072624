import { describe, expect, it } from 'vitest';
import { chooseEngine, loadNativeUws } from '../../server/transport/web.js';

// uWebSockets.js ships native builds for some Node ABIs only; on others its package quietly
// swaps in a JavaScript shim that hangs upgrades. The server must never use the shim.
describe('choosing the WebSocket engine', () => {
  it('finds no native build for a Node ABI the package does not ship', () => {
    const load = loadNativeUws('999');
    expect(load.uws).toBeUndefined();
    expect(load.error).toMatch(/no native build for Node ABI 999/);
  });

  it('falls back to ws with one explanation when auto finds no native build', () => {
    const choice = chooseEngine('auto', () => ({ error: 'no native build for Node ABI 127 (v22.0.0)' }));
    expect(choice.engine).toBe('ws');
    expect(choice.uws).toBeUndefined();
    expect(choice.note).toMatch(/unavailable \(no native build for Node ABI 127.*\); using ws/);
  });

  it('refuses WS_ENGINE=uws without a native build instead of using the shim', () => {
    expect(() => chooseEngine('uws', () => ({ error: 'no native build' }))).toThrow(/WS_ENGINE=uws/);
  });

  it('uses ws when asked, without loading uWebSockets.js', () => {
    let loaded = false;
    const choice = chooseEngine('ws', () => {
      loaded = true;
      return {};
    });
    expect(choice).toEqual({ engine: 'ws' });
    expect(loaded).toBe(false);
  });

  it('loads the native build on this Node when the package ships one for it', () => {
    const load = loadNativeUws();
    if (!load.uws) return; // a Node this package has no binary for: the fallback above applies
    expect(chooseEngine('auto').engine).toBe('uws');
  });
});
