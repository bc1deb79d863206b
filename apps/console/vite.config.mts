import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const consoleRoot = fileURLToPath(new URL('.', import.meta.url));
const fieldValidation = fileURLToPath(new URL('../../libs/field-validation/src/index.ts', import.meta.url));
// `npm run dev:console` proxies the api's doors to the api started by `npm start` (or API_URL).
const apiUrl = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  root: consoleRoot,
  plugins: [react()],
  resolve: {
    // The only lib of ours a browser may load; anything else fails to resolve.
    alias: { '@mrp/field-validation': fieldValidation },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    port: Number(process.env.CONSOLE_DEV_PORT ?? 5173),
    strictPort: false,
    proxy: {
      '/rpc': { target: apiUrl, changeOrigin: false },
      '/dev': { target: apiUrl, changeOrigin: false },
    },
  },
  test: {
    root: consoleRoot,
    environment: 'happy-dom',
    include: ['src/**/*.spec.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    restoreMocks: true,
    // Page tests type and click through whole forms: seconds each when CI runs two suites on two cores.
    testTimeout: 30_000,
  },
});
