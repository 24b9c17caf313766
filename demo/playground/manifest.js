// The playground's controls, read from custom-elements.json (served by `parley start` at /custom-elements.json):
// every attribute and settable property of an element becomes a setting of a kind, so a new attribute in the
// manifest gets a control without anyone writing one. Pure functions: no DOM.

/** @typedef {{ name: string, kind: 'text' | 'number' | 'switch' | 'select' | 'json' | 'tools', options?: string[], json?: 'array' | 'object', default: unknown, description: string, attribute?: string, property: string, type: string }} Setting */
/** @typedef {{ name: string, default: string, description: string, colour: boolean }} CssSetting */
/** @typedef {{ tag: string, description: string, settings: Setting[], cssProperties: CssSetting[] }} ElementModel */

/** The custom elements the manifest declares, each with its settings and `--parley-*` properties. */
export function elementsOf(manifest) {
  /** @type {ElementModel[]} */
  const elements = [];
  for (const mod of manifest.modules ?? []) {
    for (const declaration of mod.declarations ?? []) {
      if (!declaration.customElement || !declaration.tagName) continue;
      elements.push(elementModel(declaration));
    }
  }
  return elements;
}

function elementModel(declaration) {
  /** @type {Setting[]} */
  const settings = [];
  const byField = new Set();
  for (const attribute of declaration.attributes ?? []) {
    const setting = settingOf(attribute.name, attribute.fieldName ?? attribute.name, typeText(attribute), attribute.default, attribute.description);
    settings.push(setting);
    byField.add(setting.property);
  }
  for (const member of declaration.members ?? []) {
    if (member.kind !== 'field' || member.static || member.readonly || byField.has(member.name)) continue;
    if (member.privacy === 'private' || member.privacy === 'protected' || member.name.startsWith('_') || member.name.startsWith('#')) continue;
    const setting = settingOf(undefined, member.name, typeText(member), member.default, member.description);
    if (setting) settings.push(setting);
  }
  const cssProperties = (declaration.cssProperties ?? []).map((p) => ({
    name: p.name,
    default: String(p.default ?? ''),
    description: p.description ?? '',
    colour: /color/i.test(p.name) || /^#[0-9a-f]{3,8}$/i.test(String(p.default ?? '')),
  }));
  return { tag: declaration.tagName, description: declaration.description ?? declaration.summary ?? '', settings: settings.filter(Boolean), cssProperties };
}

function typeText(entry) {
  return String(entry.type?.text ?? '').replace(/\s+/g, ' ').trim();
}

/** One attribute or property as a control; undefined for a property that is a live object (a session, an API). */
function settingOf(attribute, property, type, rawDefault, description = '') {
  const bare = type.replace(/\s*\|\s*(null|undefined)\b/g, '').trim();
  const base = { name: attribute ?? property, attribute, property, type, description, default: parseDefault(rawDefault) };
  const literals = bare.split('|').map((s) => s.trim());
  if (bare === 'boolean') return { ...base, kind: 'switch', default: base.default === true };
  if (bare === 'number') return { ...base, kind: 'number' };
  if (literals.length > 1 && literals.every((l) => /^'[^']*'$/.test(l))) return { ...base, kind: 'select', options: literals.map((l) => l.slice(1, -1)) };
  // Functions the page runs (tools): edited as { name: what it returns }; the snippet writes the functions.
  if (/ClientTool/.test(bare)) return { ...base, kind: 'tools', json: 'object' };
  if (/[A-Za-z]Api$/.test(bare)) return undefined;
  if (bare === 'string' || bare === '') return { ...base, kind: 'text' };
  if (/\[\]$/.test(bare)) return { ...base, kind: 'json', json: 'array' };
  if (/^[A-Z]/.test(bare) && !/[<{]/.test(bare) && attribute) return { ...base, kind: 'text' };
  return { ...base, kind: 'json', json: 'object' };
}

/** The manifest's default (`"'inline'"`, `"false"`, `"4"`, `"[]"`) as a value; anything else as undefined. */
function parseDefault(raw) {
  if (raw === undefined || raw === null) return undefined;
  const text = String(raw).trim();
  if (/^'[^']*'$/.test(text) || /^"[^"]*"$/.test(text)) return text.slice(1, -1);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
