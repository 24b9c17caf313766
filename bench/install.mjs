// What `npm install parley-kit` adds to an empty project (the packed tarball, offline from npm's cache;
// see test/package/install.mjs), against the budget: 25 packages, 15 MB.
import { installPackedKit } from '../test/package/install.mjs';

export async function benchInstall() {
  const root = new URL('..', import.meta.url).pathname;
  const r = installPackedKit(root);
  return {
    'packages installed (budget 25)': r.packages,
    'packages / budget ratio': (r.packages / 25).toFixed(2),
    'bytes on disk, MB (budget 15)': (r.bytes / 1e6).toFixed(2),
    'bytes / budget ratio': (r.bytes / 15e6).toFixed(2),
    'tarball, MB': (r.tarballBytes / 1e6).toFixed(2),
    'parley-kit unpacked, MB': (r.unpackedBytes / 1e6).toFixed(2),
    'install scripts, native binaries, non-permissive licences': `${r.installScripts.length}, ${r.natives.length}, ${r.notPermissive.length}`,
  };
}
