/**
 * What a site owner installs with `npm install parley-kit`: the packed tarball in an empty project
 * (offline, from npm's cache; see test/package/install.mjs). Needs `npm run build` first (npm test does).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module shared with the command line (node test/package/install.mjs).
import { installPackedKit, isPermissive } from '../../package/install.mjs';

const ROOT = join(import.meta.dirname, '../../..');
const MB = 1_000_000;

interface Installed {
  packages: number; names: string[]; bytes: number; natives: string[]; installScripts: string[]; notPermissive: string[];
  tarballBytes: number; unpackedBytes: number; files: string[];
  checked: { relayExports: string[]; indexExports: string[]; relayHelp: string; relayNoKey: { status: number; stderr: string } };
}

describe('the packed parley-kit installed into an empty project', () => {
  let installed: Installed;
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
    installed = installPackedKit(ROOT, (project: string) => {
      const node = (code: string) => execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: project, encoding: 'utf8' });
      const bin = join(project, 'node_modules/.bin/parley-relay');
      let relayNoKey = { status: 0, stderr: '' };
      try {
        execFileSync(bin, [], { cwd: project, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, PLATFORM_API_KEY: '' } });
      } catch (err) {
        const e = err as { status: number; stderr: string };
        relayNoKey = { status: e.status, stderr: e.stderr };
      }
      return {
        relayExports: JSON.parse(node("console.log(JSON.stringify(Object.keys(await import('parley-kit/relay'))))")),
        indexExports: JSON.parse(node("console.log(JSON.stringify(Object.keys(await import('parley-kit'))))")),
        relayHelp: execFileSync(bin, ['--help'], { cwd: project, encoding: 'utf8' }),
        relayNoKey,
      };
    });
    const { files, checked, ...figures } = installed;
    // The figures the issue asks for, in the test log of every run.
    console.log(`parley-kit installed: ${figures.packages} packages, ${(figures.bytes / MB).toFixed(2)} MB on disk ` +
      `(tarball ${(figures.tarballBytes / MB).toFixed(2)} MB, unpacked ${(figures.unpackedBytes / MB).toFixed(2)} MB, ${files.length} files): ${figures.names.join(', ')}`);
  }, 180_000);

  it('installs at most 25 packages in at most 15 MB', () => {
    expect(installed.packages).toBeLessThanOrEqual(25);
    expect(installed.bytes).toBeLessThanOrEqual(15 * MB);
  });

  it('runs no install script and carries no native binary', () => {
    expect(installed.installScripts).toEqual([]);
    expect(installed.natives).toEqual([]);
  });

  it('holds only permissive licences', () => {
    expect(installed.notPermissive).toEqual([]);
  });

  it('carries the elements, the CDN bundles, the relay and the manifest, and nothing of the local platform', () => {
    for (const file of ['dist/browser/agent-chat.js', 'dist/browser/doc-ocr-viewer.js', 'dist/elements/agent-chat/define.js', 'dist/relay/index.js', 'dist/vendor/pdfjs.js', 'dist/browser/parley-mic-worklet.js', 'dist/audio/capture/parley-mic-worklet.js', 'custom-elements.json', 'bin/parley-relay.js', 'types/react.d.ts', 'types/vue.d.ts']) {
      expect(installed.files).toContain(file);
    }
    expect(installed.files.filter((f) => /platform|engines|\.map$/.test(f))).toEqual([]);
    // The vendor bundles carry a content hash (cached for good by CDNs); dist/vendor/ re-exports them by that name.
    expect(installed.files.filter((f) => /^dist\/browser\/vendor\/(pdfjs|pdf-worker)-[\w-]{8}\.js$/.test(f))).toHaveLength(2);
    expect(installed.names).not.toContain('@parley-kit/platform');
    expect(installed.names).not.toContain('pdfjs-dist');
  });

  it('imports in Node: the relay and the side-effect-free browser entry', () => {
    expect(installed.checked.relayExports).toEqual(expect.arrayContaining(['createRelay', 'serveRelay']));
    expect(installed.checked.indexExports).toEqual(expect.arrayContaining(['AgentChat', 'ParleyClient', 'ChatSession']));
  });

  it('runs the relay alone: parley-relay --help, and a clear refusal without a key', () => {
    expect(installed.checked.relayHelp).toMatch(/Usage: parley-relay/);
    expect(installed.checked.relayNoKey.status).toBe(2);
    expect(installed.checked.relayNoKey.stderr).toMatch(/PLATFORM_API_KEY/);
  });
});

describe('licence expressions', () => {
  it('accepts a permissive choice and refuses copyleft', () => {
    expect(isPermissive('MIT')).toBe(true);
    expect(isPermissive('(MPL-2.0 OR Apache-2.0)')).toBe(true);
    expect(isPermissive('GPL-3.0')).toBe(false);
    expect(isPermissive('LGPL-3.0')).toBe(false);
    expect(isPermissive(undefined)).toBe(false);
  });
});
