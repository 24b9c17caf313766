// The four elements as custom-elements.json describes them, in the shape the reference pages (scripts/docs.mjs)
// and their completeness test need: per element its attributes, settable and read-only public properties, public
// methods, events with their detail types, slots, CSS parts and CSS custom properties, each with its description.
// Which fields count as settable properties is the rule scripts/framework-types.mjs types for React and Vue.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The committed manifest. */
export function readManifest(root = ROOT) {
  return JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8'));
}

/** Every custom element declaration of the manifest with its module, by tag name. */
export function elementDeclarations(manifest) {
  return manifest.modules
    .flatMap((mod) => (mod.declarations ?? []).filter((d) => d.customElement && d.tagName).map((decl) => ({ mod, decl })))
    .sort((a, b) => (a.decl.tagName < b.decl.tagName ? -1 : a.decl.tagName > b.decl.tagName ? 1 : 0));
}

const isPublic = (m) => !m.static && !m.name.startsWith('#') && (m.privacy ?? 'public') === 'public';

/** Fields a page (or a framework) can set: public, not static, not read-only. */
export function settableProperties(decl) {
  return (decl.members ?? []).filter((m) => m.kind === 'field' && !m.readonly && isPublic(m));
}

/** One element as the reference pages show it. */
export function elementModel({ mod, decl }) {
  const text = (item) => (item.description || item.summary || '').trim();
  const type = (item) => item.type?.text ?? '';
  const fields = (decl.members ?? []).filter((m) => m.kind === 'field' && isPublic(m));
  return {
    tag: decl.tagName,
    className: decl.name,
    module: mod.path,
    summary: (decl.summary ?? '').trim(),
    description: (decl.description ?? '').trim(),
    attributes: (decl.attributes ?? []).map((a) => ({ name: a.name, type: type(a), default: a.default ?? '', property: a.fieldName ?? '', description: text(a) })),
    properties: fields.map((m) => ({ name: m.name, type: type(m), default: m.default ?? '', attribute: m.attribute ?? '', readonly: Boolean(m.readonly), description: text(m) })),
    methods: (decl.members ?? []).filter((m) => m.kind === 'method' && isPublic(m)).map((m) => ({
      name: m.name,
      signature: `${m.name}(${(m.parameters ?? []).map((p) => `${p.name}${p.optional ? '?' : ''}${p.type?.text ? `: ${p.type.text}` : ''}`).join(', ')})${m.return?.type?.text ? `: ${m.return.type.text}` : ''}`,
      description: text(m),
    })),
    events: (decl.events ?? []).filter((e) => e.name).map((e) => ({ name: e.name, type: type(e) || 'Event', description: text(e) })),
    slots: (decl.slots ?? []).map((s) => ({ name: s.name, description: text(s) })),
    parts: (decl.cssParts ?? []).map((p) => ({ name: p.name, description: text(p) })),
    cssProperties: (decl.cssProperties ?? []).map((p) => ({ name: p.name, default: p.default ?? '', description: text(p) })),
  };
}

/** The elements of a manifest (default: the committed one), sorted by tag name. */
export function elementModels(manifest = readManifest()) {
  return elementDeclarations(manifest).map(elementModel);
}

/** The member lists of an element page: its heading's id (`anchor`) and the id prefix each row gets (`attribute-relay-url`). */
export const SECTIONS = [
  { key: 'attributes', id: 'attribute', anchor: 'attributes', title: 'Attributes' },
  { key: 'properties', id: 'property', anchor: 'properties', title: 'Properties' },
  { key: 'methods', id: 'method', anchor: 'methods', title: 'Methods' },
  { key: 'events', id: 'event', anchor: 'events', title: 'Events' },
  { key: 'slots', id: 'slot', anchor: 'slots', title: 'Slots' },
  { key: 'parts', id: 'part', anchor: 'parts', title: 'CSS parts' },
  { key: 'cssProperties', id: 'css-property', anchor: 'css-properties', title: 'CSS custom properties' },
];

/** The id of a member's row on its element's page (the default slot's name is empty). */
export function memberId(section, name) {
  return `${section.id}-${name === '' ? 'default' : name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}
