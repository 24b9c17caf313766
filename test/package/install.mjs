// Packs parley-kit and installs the tarball into an empty project, offline: the project gets a lockfile
// made from the workspace's own (the same resolved versions and integrity hashes), so `npm ci --offline`
// takes every package from npm's cache and the test touches no network. Then measures what a site owner
// installs: packages, bytes on disk, install scripts, native binaries, licences.
import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** SPDX identifiers a site owner can ship without conditions beyond a notice. */
export const PERMISSIVE = new Set(['MIT', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', '0BSD']);

/** True when an SPDX expression allows a permissive choice ("(MPL-2.0 OR Apache-2.0)" does). */
export function isPermissive(license) {
  if (typeof license !== 'string') return false;
  const options = license.replace(/[()]/g, '').split(/\s+OR\s+/);
  return options.some((option) => option.split(/\s+AND\s+/).every((id) => PERMISSIVE.has(id.trim())));
}

/** The lockfile entries (paths) of `names` and everything they need, as npm resolves them from `from`. */
function closure(packages, names, from = '') {
  const found = new Set();
  const visit = (name, at, optional = false) => {
    // Node's lookup: at/node_modules/name, then each parent's node_modules.
    let dir = at;
    for (;;) {
      const key = (dir ? `${dir}/` : '') + `node_modules/${name}`;
      if (packages[key]) {
        if (found.has(key)) return;
        found.add(key);
        const entry = packages[key];
        const peers = Object.keys(entry.peerDependencies ?? {}).filter((p) => !entry.peerDependenciesMeta?.[p]?.optional);
        for (const dep of [...Object.keys(entry.dependencies ?? {}), ...peers]) visit(dep, key);
        // Optional ones the lock does not hold are other platforms' binaries (rolldown's, lightningcss's).
        for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(dep, key, true);
        return;
      }
      if (!dir && optional) return;
      if (!dir) throw new Error(`${name} is not in package-lock.json (needed from '${at}')`);
      const i = dir.lastIndexOf('/node_modules/');
      dir = i < 0 ? '' : dir.slice(0, i);
    }
  };
  for (const name of names) visit(name, from);
  return found;
}

/**
 * Installs the packed kit into a new empty project and returns its measurements; `inProject(dir)` runs
 * in the installed project before it is removed, and what it returns comes back as `checked`. With `example`
 * (a folder such as examples/react-vite), the project is a copy of it, with its own dependencies taken from
 * the workspace's lockfile (they must be root devDependencies) and parley-kit from the tarball.
 */
export function installPackedKit(root, inProject = () => undefined, { example } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'parley-pack-'));
  const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  try {
    const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root))[0];
    const kit = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const project = join(work, 'site');
    mkdirSync(project);
    const tarball = `file:../${packed.filename}`;
    const site = example ? JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) : { name: 'site', version: '1.0.0', private: true };
    if (example) cpSync(example, project, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
    site.dependencies = { ...site.dependencies, 'parley-kit': tarball };
    const theirs = [...Object.keys(site.dependencies), ...Object.keys(site.devDependencies ?? {})].filter((name) => name !== 'parley-kit');
    const deps = [...Object.keys(kit.dependencies ?? {}), ...theirs];
    const packages = {
      '': { name: site.name, version: site.version, dependencies: site.dependencies, ...(site.devDependencies ? { devDependencies: site.devDependencies } : {}) },
      'node_modules/parley-kit': { version: kit.version, resolved: tarball, license: kit.license, dependencies: kit.dependencies, bin: kit.bin },
    };
    // The workspace's lock records no tarball URLs (omit-lockfile-registry-resolved): each entry gets its URL on the
    // configured registry, so `npm ci --offline` takes the tarball from the cache by its integrity, with no metadata.
    const registry = npm(['config', 'get', 'registry'], root).trim().replace(/\/$/, '');
    for (const key of closure(lock.packages, deps)) {
      const { dev, devOptional, peer, ...entry } = lock.packages[key];
      const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      packages[key] = entry.resolved || !entry.integrity ? entry : { ...entry, resolved: `${registry}/${name}/-/${name.split('/').pop()}-${entry.version}.tgz` };
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify(site, null, 2));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: site.name, version: site.version, lockfileVersion: 3, requires: true, packages }, null, 2));
    npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
    const checked = inProject(project);
    return { ...measure(join(project, 'node_modules')), tarballBytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.files.map((f) => f.path), checked };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every installed package (with its path), the bytes of its files, and what would run or load natively. */
export function measure(nodeModules) {
  const installed = [];
  const walkPackages = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      if (name.startsWith('@')) { walkPackages(path); continue; }
      const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
      installed.push({ path, name: manifest.name, version: manifest.version, license: manifest.license, scripts: manifest.scripts ?? {}, gypfile: manifest.gypfile });
      try { walkPackages(join(path, 'node_modules')); } catch { /* no nested packages */ }
    }
  };
  walkPackages(nodeModules);
  let bytes = 0;
  const natives = [];
  const walkFiles = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) walkFiles(path);
      else {
        bytes += stat.size;
        if (name.endsWith('.node') || name === 'binding.gyp') natives.push(path.slice(nodeModules.length + 1));
      }
    }
  };
  walkFiles(nodeModules);
  const installScripts = installed.filter((p) => ['preinstall', 'install', 'postinstall'].some((s) => p.scripts[s]) || p.gypfile)
    .map((p) => `${p.name}: ${['preinstall', 'install', 'postinstall'].filter((s) => p.scripts[s]).join(', ') || 'gypfile'}`);
  const licences = Object.fromEntries(installed.map((p) => [`${p.name}@${p.version}`, p.license]));
  const notPermissive = installed.filter((p) => !isPermissive(p.license)).map((p) => `${p.name}@${p.version}: ${JSON.stringify(p.license)}`);
  return { packages: installed.length, names: installed.map((p) => p.name).sort(), bytes, natives, installScripts, licences, notPermissive };
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const result = installPackedKit(new URL('../..', import.meta.url).pathname);
  const { files, licences, ...figures } = result;
  console.log(JSON.stringify({ ...figures, files: files.length }, null, 2));
}
