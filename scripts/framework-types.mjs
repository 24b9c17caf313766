#!/usr/bin/env node
// Framework typings of the elements, made from custom-elements.json: types/react.d.ts (React 19 JSX) and
// types/vue.d.ts (Vue 3 templates, vue-tsc). `npm run analyze` writes them beside the manifest through
// the analyzer plugin below (custom-elements-manifest.config.mjs); `node scripts/framework-types.mjs`
// writes them from the committed custom-elements.json; scripts/check-manifest.mjs checks they are fresh.
//
// From the manifest: each element's attributes (kebab-case), its settable public properties (no
// readonly, static or private fields) and its events with their `CustomEvent<…>` types, with the JSDoc.
// Type names in those types are imported from the declarations tsc emits into dist/: from the module
// that declares or imports the name in the element's source, else from the one module of src/ that
// exports a declaration of that name (event details named only in `@fires`); other names are globals.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { elementDeclarations, settableProperties } from './manifest-model.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the files are shipped, relative to the package root: their imports of dist/ are relative to it. */
export const TYPES_DIR = 'types';
export const FILES = ['react.d.ts', 'vue.d.ts'];

/** The two files' text, by file name, for a manifest (`root`: the package whose src/ the manifest describes). */
export function frameworkTypes(manifest, { root = ROOT } = {}) {
  const elements = elementDeclarations(manifest);
  const imports = new Imports(root);
  const parsed = elements.map(({ mod, decl }) => parseElement(mod, decl, imports));
  return { 'react.d.ts': reactFile(parsed, imports), 'vue.d.ts': vueFile(parsed, imports) };
}

/** Writes both files into `outdir`. */
export function writeFrameworkTypes(manifest, outdir, options) {
  mkdirSync(outdir, { recursive: true });
  for (const [name, text] of Object.entries(frameworkTypes(manifest, options))) writeFileSync(join(outdir, name), text);
}

/** Analyzer plugin: writes the files into `outdir` once the manifest is complete. */
export function frameworkTypesPlugin({ outdir = TYPES_DIR } = {}) {
  return {
    name: 'parley-framework-types',
    packageLinkPhase({ customElementsManifest }) {
      writeFrameworkTypes(customElementsManifest, outdir);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The manifest's elements, with their type texts checked and their type names resolved.

function parseElement(mod, decl, imports) {
  const where = `<${decl.tagName}>`;
  const typeOf = (item, fallback, from = mod.path) => {
    const text = item.type?.text;
    if (!text) return fallback;
    return imports.use(text, moduleOf(item.inheritedFrom?.module ?? from), `${where} ${item.name}`);
  };
  const attributes = (decl.attributes ?? []).map((a) => {
    const field = decl.members?.find((m) => m.kind === 'field' && m.name === a.fieldName);
    return { name: a.name, fieldName: a.fieldName, type: typeOf(a, 'string', field?.inheritedFrom?.module), doc: docOf(a) };
  });
  const properties = settableProperties(decl)
    .map((m) => ({ name: m.name, attribute: m.attribute, type: typeOf(m, 'unknown'), doc: docOf(m) }));
  const events = (decl.events ?? []).filter((e) => e.name).map((e) => ({ name: e.name, type: typeOf(e, 'Event'), doc: docOf(e) }));
  const className = imports.element(decl.name, moduleOf(mod.path), where);
  return { tag: decl.tagName, className, attributes, properties, events, slots: decl.slots ?? [], doc: docOf(decl) };
}

/** `src/a/b.ts` from a manifest module path (`src/a/b.ts`, `/src/a/b.js`). */
function moduleOf(path) {
  return path.replace(/^\//, '').replace(/\.js$/, '.ts');
}

function docOf(item) {
  const text = (item.description || item.summary || '').trim();
  const deprecated = item.deprecated ? `@deprecated${typeof item.deprecated === 'string' ? ` ${item.deprecated}` : ''}` : '';
  return [text, deprecated].filter(Boolean).join('\n');
}

/**
 * The type names the files import, by local name, and where they come from. `use(text)` parses a type,
 * records the names it refers to and gives the type back printed on one line.
 */
class Imports {
  constructor(root) {
    this.root = root;
    /** local name → { from: import specifier, name: exported name } */
    this.names = new Map();
    this.sources = new Map();
    this.declarers = null;
  }

  element(className, module, where) {
    this.add(className, { from: distSpecifier(module), name: className }, where);
    return className;
  }

  use(text, module, where) {
    const source = ts.createSourceFile('type.ts', `type T = ${text};`, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const alias = source.statements[0];
    if (source.parseDiagnostics?.length || source.statements.length !== 1 || !ts.isTypeAliasDeclaration(alias)) throw new Error(`framework-types: ${where}: cannot parse the type \`${text}\``);
    const visit = (node) => {
      let name;
      if (ts.isTypeReferenceNode(node)) name = leftmost(node.typeName);
      else if (ts.isTypeQueryNode(node)) name = leftmost(node.exprName);
      if (name) {
        const found = this.resolve(name, module, where);
        if (found) this.add(name, found, where);
      }
      ts.forEachChild(node, visit);
    };
    visit(alias.type);
    const printed = ts.createPrinter({ removeComments: true }).printNode(ts.EmitHint.Unspecified, alias.type, source);
    return printed.replace(/\s*\n\s*/g, ' ');
  }

  add(local, found, where) {
    const known = this.names.get(local);
    if (known && (known.from !== found.from || known.name !== found.name)) {
      throw new Error(`framework-types: ${where}: \`${local}\` is both ${known.name} from ${known.from} and ${found.name} from ${found.from}`);
    }
    this.names.set(local, found);
  }

  /** Where `name`, as written in `module`, comes from: `{ from, name }`, or undefined for a global. */
  resolve(name, module, where) {
    const scope = this.scope(module);
    if (scope) {
      if (scope.imports.has(name)) return scope.imports.get(name);
      if (scope.exported.has(name)) return { from: distSpecifier(module), name };
      if (scope.local.has(name)) throw new Error(`framework-types: ${where}: \`${name}\` is declared in ${module} but not exported`);
    }
    const modules = this.declaring(name);
    if (modules.length > 1) throw new Error(`framework-types: ${where}: \`${name}\` is declared in ${modules.join(' and ')}; name it in ${module}`);
    return modules.length ? { from: distSpecifier(modules[0]), name } : undefined;
  }

  /** What a module of src/ imports, exports and declares (types and classes), or null if it is not there. */
  scope(module) {
    if (this.sources.has(module)) return this.sources.get(module);
    const file = join(this.root, module);
    const scope = existsSync(file) ? readScope(this.root, module) : null;
    this.sources.set(module, scope);
    return scope;
  }

  /** The modules of src/ that export a declaration named `name`. */
  declaring(name) {
    if (!this.declarers) {
      this.declarers = new Map();
      for (const module of sourceFiles(join(this.root, 'src')).map((f) => relative(this.root, f).split('\\').join('/'))) {
        for (const declared of this.scope(module)?.declared ?? []) {
          this.declarers.set(declared, [...(this.declarers.get(declared) ?? []), module]);
        }
      }
    }
    return this.declarers.get(name) ?? [];
  }
}

/** The import specifier, from types/, of the declarations tsc emits for `src/….ts` (or `src/….d.ts`). */
function distSpecifier(module) {
  if (!module.startsWith('src/')) throw new Error(`framework-types: ${module} is outside src/`);
  const emitted = `dist/${module.slice('src/'.length).replace(/(\.d)?\.ts$/, '.js')}`;
  return posix.relative(TYPES_DIR, emitted).replace(/^(?!\.)/, './');
}

function leftmost(name) {
  while (ts.isQualifiedName(name)) name = name.left;
  return ts.isIdentifier(name) ? name.text : undefined;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * A module's names: `imports` (local name → { from, name }: dist/ specifiers, package names as they are),
 * `exported` (names it exports, declared or re-exported), `declared` (exported declarations of its
 * own), `local` (all its type and class declarations).
 */
function readScope(root, module) {
  const file = join(root, module);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const scope = { imports: new Map(), exported: new Set(), declared: new Set(), local: new Set() };
  const target = (specifier) => {
    if (!specifier.startsWith('.')) return specifier; // a package: its types are imported from it as they are
    const resolved = posix.join(posix.dirname(module), specifier).replace(/\.js$/, '');
    const declarations = `${resolved}.d.ts`; // src/vendor/*.js come with their declarations
    return distSpecifier(existsSync(join(root, declarations)) ? declarations : `${resolved}.ts`);
  };
  const exportedModifier = (node) => ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const from = target(statement.moduleSpecifier.text);
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) scope.imports.set(el.name.text, { from, name: (el.propertyName ?? el.name).text });
      }
    } else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const el of statement.exportClause.elements) scope.exported.add(el.name.text);
    } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) {
      if (!statement.name) continue;
      scope.local.add(statement.name.text);
      if (exportedModifier(statement)) {
        scope.exported.add(statement.name.text);
        scope.declared.add(statement.name.text);
      }
    }
  }
  return scope;
}

// ---------------------------------------------------------------------------------------------------
// The files.

const HEADER = '// Generated by scripts/framework-types.mjs from custom-elements.json (`npm run analyze`): do not edit.\n';

function comment(text, indent = '') {
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  return lines.length === 1 ? `${indent}/** ${lines[0]} */\n` : `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}

function importLines(imports) {
  const byFrom = new Map();
  for (const [local, { from, name }] of imports.names) {
    byFrom.set(from, [...(byFrom.get(from) ?? []), name === local ? name : `${name} as ${local}`]);
  }
  return [...byFrom].sort(([a], [b]) => byText(a, b))
    .map(([from, names]) => `import type { ${names.sort().join(', ')} } from '${from}';\n`).join('');
}

/** The same order on every machine (no locale). */
function byText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function key(name) {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`;
}

function camelize(name) {
  return name.replace(/-(\w)/g, (_, c) => c.toUpperCase());
}

function member(name, type, doc) {
  return `${comment(doc, '  ')}  ${key(name)}?: ${type};\n`;
}

/** One entry per name, the first kept (attributes come before properties). */
function members(list) {
  const seen = new Set();
  return list.filter(([name]) => !seen.has(name) && seen.add(name)).map((args) => member(...args)).join('');
}

function reactFile(elements, imports) {
  const interfaces = elements.map((el) => {
    const list = [
      ...el.attributes.map((a) => [a.name, a.type, attributeDoc(a)]),
      ...el.properties.map((p) => [p.name, p.type, propertyDoc(p)]),
      ...el.events.map((e) => [`on${e.name}`, `(event: ${e.type}) => void`, eventDoc(e)]),
    ];
    return `/** \`<${el.tag}>\` in React: attributes by their kebab-case names, properties by theirs, events as \`on\` + the event name. */\n` +
      `export interface ${el.className}ReactProps {\n${members(list)}}\n`;
  }).join('\n');
  const entries = elements.map((el) => `${comment(el.doc, '  ')}  '${el.tag}': ParleyReactElement<${el.className}, ${el.className}ReactProps>;\n`).join('');
  return `${HEADER}/**
 * React 19 JSX types of parley-kit's elements. Load them once, from any module of the app
 * (\`import type {} from 'parley-kit/react';\`) or with \`"types": ["parley-kit/react"]\` in tsconfig.json.
 *
 * React 19 gives a custom element each prop as a property when the element has one (\`tools={…}\`),
 * else as an attribute (\`relay-url="/api"\`), and listens for the events of props named \`on\` + the
 * event name (\`onparley-reply-finished={(e) => e.detail.text}\`). Register the elements before React
 * renders them (\`import 'parley-kit/agent-chat';\`), so that properties reach the element itself.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
${importLines(imports)}
${interfaces}
/** An element's own props, then React's for any HTML element (\`ref\` gets the element, \`className\`, \`style\`…). */
export type ParleyReactElement<E extends HTMLElement, P> = P & Omit<DetailedHTMLProps<HTMLAttributes<E>, E>, keyof P>;

/** parley-kit's elements by tag name, as React's \`JSX.IntrinsicElements\` takes them. */
export interface ParleyIntrinsicElements {
${entries}}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements extends ParleyIntrinsicElements {}
  }
}
`;
}

function vueFile(elements, imports) {
  const interfaces = elements.map((el) => {
    const list = [
      ...el.attributes.map((a) => [camelize(a.name), a.type, [a.doc, camelize(a.name) !== a.name ? `Attribute \`${a.name}\`.` : ''].filter(Boolean).join('\n\n')]),
      ...el.properties.map((p) => [p.name, p.type, propertyDoc(p)]),
      ...el.events.map((e) => [camelize(`on-${e.name}`), `(event: ${e.type}) => void`, eventDoc(e)]),
    ];
    return `/** \`<${el.tag}>\` in Vue templates: \`relay-url\` and \`:relayUrl\` are both \`relayUrl\` here, \`@parley-…\` events are \`onParley…\`. */\n` +
      `export interface ${el.className}VueProps {\n${members(list)}}\n`;
  }).join('\n');
  const entries = elements.map((el) => `${comment(el.doc, '  ')}  '${el.tag}': ParleyVueElement<${el.className}VueProps>;\n`).join('');
  const slotted = elements.some((el) => el.slots.some((slot) => slot.name));
  return `${HEADER}/**
 * Vue 3 template types of parley-kit's elements, for vue-tsc and Vue's editor tooling: global components
 * named by tag. Load them once (\`import type {} from 'parley-kit/vue';\` in a module of the app, or
 * \`"types": ["parley-kit/vue"]\` in tsconfig.json); at run time Vue renders the tags as custom elements
 * once the compiler is told to (\`compilerOptions.isCustomElement: (tag) => tag.includes('-')\`).
 *
 * Vue sets a binding as a property when the element has one (\`:tools="…"\`, \`:speakReplies="false"\`),
 * else as an attribute (\`relay-url="/api"\`); \`@parley-reply-finished="(e) => e.detail.text"\` listens
 * for the element's event.
 */
import type { HTMLAttributes, ReservedProps } from 'vue';
${importLines(imports)}
${interfaces}
/** An element's own props, then Vue's for any HTML element (\`class\`, \`style\`, \`@click\`, \`ref\`…). */
export type ParleyVueElement<P> = (props: P & Omit<HTMLAttributes, keyof P> & ReservedProps) => void;

/** parley-kit's elements by tag name, as Vue's \`GlobalComponents\` takes them. */
export interface ParleyVueElements {
${entries}}

declare module 'vue' {
  interface GlobalComponents extends ParleyVueElements {}
${slotted ? `  /** The element's slot in its parent's shadow tree (\`<p slot="empty">\` in \`<agent-chat>\`), which Vue's own HTML types leave out. */
  interface HTMLAttributes {
    slot?: string;
  }
` : ''}}
`;
}

function attributeDoc(a) {
  const other = a.fieldName && a.fieldName !== a.name ? `Attribute of the property \`${a.fieldName}\`.` : '';
  return [a.doc, other].filter(Boolean).join('\n\n');
}

function propertyDoc(p) {
  const other = p.attribute && p.attribute !== p.name ? `Property of the attribute \`${p.attribute}\`.` : '';
  return [p.doc, other].filter(Boolean).join('\n\n');
}

function eventDoc(e) {
  return [e.doc, `Event \`${e.name}\`.`].filter(Boolean).join('\n\n');
}

// `node scripts/framework-types.mjs [manifest] [--outdir dir]`: from the committed manifest into types/.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--outdir');
  const outdir = at >= 0 ? args.splice(at, 2)[1] : join(ROOT, TYPES_DIR);
  const manifest = JSON.parse(readFileSync(args[0] ?? join(ROOT, 'custom-elements.json'), 'utf8'));
  writeFrameworkTypes(manifest, outdir);
  console.log(`framework types written: ${FILES.map((f) => join(relative(process.cwd(), outdir) || '.', f)).join(', ')}`);
}
