// Vite build of the web UI: src/web → dist/web (served by the Fastify server at /).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  // React's automatic JSX runtime through esbuild (no extra plugin).
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
    rollupOptions: {
      // TanStack Query marks its modules "use client" for React Server Components; a browser bundle
      // has nothing to do with that marker.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('"use client"')) return;
        warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
