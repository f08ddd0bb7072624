/**
 * The browser client's build. Root is web-client/; the bundle goes to web-client/dist.
 * Sources (the client's and shared/) import TypeScript files with `.js` extensions, as
 * NodeNext wants; the resolver below maps such an import to the `.ts` file beside it.
 * In dev, /ws is proxied to the game server (WYVERN_SERVER, default http://localhost:8080).
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

function tsFromJsExtension(): Plugin {
  return {
    name: 'wyvern-ts-from-js',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.') || !source.endsWith('.js')) return null;
      const candidate = resolve(dirname(importer.split('?')[0] as string), `${source.slice(0, -3)}.ts`);
      return existsSync(candidate) ? candidate : null;
    },
  };
}

export default defineConfig({
  root: resolve(here, 'web-client'),
  plugins: [tsFromJsExtension()],
  build: {
    outDir: resolve(here, 'web-client/dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
  server: {
    fs: { allow: [here] },
    proxy: {
      '/ws': {
        target: process.env['WYVERN_SERVER'] ?? 'http://localhost:8080',
        ws: true,
        changeOrigin: true,
      },
    },
  },
  preview: {
    proxy: {
      '/ws': {
        target: process.env['WYVERN_SERVER'] ?? 'http://localhost:8080',
        ws: true,
        changeOrigin: true,
      },
    },
  },
});
