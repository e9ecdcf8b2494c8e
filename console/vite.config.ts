import { gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** A .gz twin of every asset, served by the admin port when the browser accepts gzip (no per-request compression). */
const gzipAssets = (): Plugin => ({
  name: 'gzip-assets',
  apply: 'build',
  closeBundle() {
    const dir = path.resolve(import.meta.dirname, 'dist/assets');
    for (const name of readdirSync(dir)) {
      if (/\.(js|css|svg|json)$/.test(name))
        writeFileSync(path.join(dir, `${name}.gz`), gzipSync(readFileSync(path.join(dir, name)), { level: 9 }));
    }
  },
});

// Served by the back-office port at /admin (src/http/console.routes.ts), same origin as the API.
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react(), gzipAssets()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500, reportCompressedSize: false },
  logLevel: 'warn',
});
