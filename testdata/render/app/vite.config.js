// Builds the fixture pages Trawl's rendering tests load in a real browser:
// one HTML entry per page, React compiled by esbuild (no plugin needed).
import { resolve } from 'node:path'
import { defineConfig } from 'vite'

const pages = ['article', 'lazy', 'xhr', 'hash', 'consent', 'never', 'hog', 'ssrf']

export default defineConfig({
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    rollupOptions: {
      input: Object.fromEntries(pages.map((p) => [p, resolve(import.meta.dirname, p + '.html')])),
    },
  },
})
