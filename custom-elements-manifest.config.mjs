// Custom elements manifest (custom-elements.json), made from the elements' JSDoc: `npm run analyze`.
// `packagejson: false`: package.json's `customElements` stays pointed at the committed file, even when
// the freshness check writes to another directory.
import { join } from 'node:path';
import { ELEMENTS } from './scripts/bundle-sizes.mjs';
import { frameworkTypesPlugin, TYPES_DIR } from './scripts/framework-types.mjs';

// The analyzer does not tell plugins its `--outdir`: read it here, so that the framework types
// (types/react.d.ts, types/vue.d.ts) are written beside the manifest wherever it goes (the freshness
// check, scripts/check-manifest.mjs, analyzes into a scratch directory).
const args = process.argv.slice(2);
const at = args.findIndex((arg) => arg === '--outdir' || arg.startsWith('--outdir='));
const outdir = at < 0 ? '.' : args[at].includes('=') ? args[at].slice('--outdir='.length) : args[at + 1];

export default {
  // What is published is what is public (as Shoelace analyzes its `*.component.ts` only): the four element
  // classes, their base class (its members are inherited into each: `theme`, `emit`) and their events'
  // files; not the controllers, sessions and helpers beside them.
  globs: [
    ...ELEMENTS.map((tag) => `src/elements/${tag}/${tag}.ts`),
    'src/elements/internal/parley-element.ts',
    'src/elements/internal/events.ts',
    'src/elements/*/events.ts',
    'src/elements/agent-chat/voice-events.ts',
  ],
  litelement: true,
  packagejson: false,
  plugins: [
    {
      // ParleyElement is the elements' base class (its members are inherited into each, marked so) and defines
      // no tag: the manifest lists it as a class, not as a fifth custom element.
      name: 'parley-base-class',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) if (declaration.customElement && !declaration.tagName) delete declaration.customElement;
        }
      },
    },
    // Joined as the analyzer joins its own: under the working directory, even for an absolute --outdir.
    frameworkTypesPlugin({ outdir: join(process.cwd(), outdir, TYPES_DIR) }),
  ],
};
