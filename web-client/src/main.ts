/**
 * Entry point. The crypto polyfill is imported first and everything else is loaded after it
 * with dynamic imports, so that on an insecure page (plain http from another machine)
 * `crypto.subtle.digest` exists before tssrp6a is ever evaluated. `?lab` opens the netcode
 * lab (lab.ts) instead of the game.
 */
import './net/crypto-polyfill.js';
import './ui/styles.css';

async function main(): Promise<void> {
  const canvasHost = document.getElementById('game') as HTMLElement;
  const uiHost = document.getElementById('ui') as HTMLElement;
  try {
    if (new URLSearchParams(location.search).has('lab')) {
      const { startLab } = await import('./lab.js');
      await startLab(uiHost);
      return;
    }
    const [{ startApp }, { WorldRenderer }] = await Promise.all([
      import('./app.js'),
      import('./render/renderer.js'),
    ]);
    await startApp(canvasHost, uiHost, WorldRenderer);
  } catch (err) {
    console.error(err);
    uiHost.textContent = `The game could not start: ${err instanceof Error ? err.message : String(err)}`;
    uiHost.classList.add('fatal');
  }
}

void main();
