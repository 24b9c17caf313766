import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

/** The kit's tags are custom elements, not Vue components. */
const PARLEY_TAGS = new Set(['agent-chat', 'speech-player', 'audio-transcriber', 'doc-ocr-viewer']);

// `npm run dev` proxies the relay to the one `npm start` runs at the repository's root (port 8787).
export default defineConfig({
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => PARLEY_TAGS.has(tag) } } })],
  server: { proxy: { '/api': { target: 'http://127.0.0.1:8787', ws: true } } },
});
