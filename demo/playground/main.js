// The playground (/playground): pick an element, set its attributes, properties and --parley-* custom properties
// with controls generated from custom-elements.json, watch the live element (it talks to this server's relay, /api),
// and copy the embed code with the relay command that serves it on your site.
import { elementsOf } from './manifest.js';
import { cssControl, el, settingControl } from './controls.js';
import { RELAY_NAME, elementPlan, embedCode, relayPolicy, styleRules, toolFunctions } from './embed-code.js';

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const [manifest, config] = await Promise.all([getJson('/custom-elements.json'), getJson('/playground-config.json')]);
const elements = elementsOf(manifest);
const sheet = new CSSStyleSheet();
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

/** Everything chosen, per element (switching back keeps what was set). */
const chosen = new Map();
let model = elements[0];
let live = /** @type {HTMLElement | undefined} */ (undefined);
const relay = { origin: 'http://localhost:3000', port: 8789, upstream: config.upstream, relayUrl: '', agents: [], models: [], scopes: [], source: 'cdn', problems: new Set() };

async function getJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

function stateOf(tag) {
  if (!chosen.has(tag)) {
    const m = elements.find((e) => e.tag === tag);
    const values = {};
    for (const s of m.settings) values[s.property] = s.kind === 'json' || s.kind === 'tools' ? null : s.default;
    // The demo's agent, so the preview talks to someone from the start.
    if (tag === 'agent-chat' && 'agentId' in values) {
      if (config.agentId) values.agentId = config.agentId;
      else if (config.model) values.model = config.model;
    }
    chosen.set(tag, { values, css: { light: {}, dark: {} }, page: { dir: '', lang: '' } });
  }
  return chosen.get(tag);
}

function buildElementPicker() {
  const select = /** @type {HTMLSelectElement} */ ($('element-select'));
  for (const e of elements) select.append(el('option', { value: e.tag }, `<${e.tag}>`));
  select.addEventListener('change', () => selectElement(select.value));
}

async function selectElement(tag) {
  model = elements.find((e) => e.tag === tag);
  const state = stateOf(tag);
  const settings = $('settings-list');
  settings.replaceChildren(...model.settings.map((s) => settingControl(s, state.values[s.property], (property, value) => {
    state.values[property] = value;
    update();
  })));
  for (const theme of ['light', 'dark']) {
    $(`css-${theme}-list`).replaceChildren(...model.cssProperties.map((p) => cssControl(p, theme, state.css[theme][p.name], (name, value) => {
      if (value) state.css[theme][name] = value;
      else delete state.css[theme][name];
      update();
    })));
  }
  /** @type {HTMLSelectElement} */ ($('page-dir')).value = state.page.dir;
  /** @type {HTMLInputElement} */ ($('page-lang')).value = state.page.lang;
  await import(`/assets/${tag}.js`);
  if (model.tag !== tag) return; // another element was picked while this one loaded
  live?.remove();
  live = document.createElement(tag);
  $('preview-frame').append(live);
  update();
}

/** The live element as chosen: the same attributes, properties and styles as the code, but this server's relay. */
function applyToPreview(state) {
  if (!live) return;
  const plan = elementPlan(model, { ...state.values, relayUrl: '' });
  const wanted = new Map(plan.attributes);
  wanted.set('relay-url', '/api');
  if (state.page.dir) wanted.set('dir', state.page.dir);
  if (state.page.lang) wanted.set('lang', state.page.lang);
  for (const name of [...model.settings.map((s) => s.attribute).filter(Boolean), 'dir', 'lang']) {
    if (!wanted.has(name)) live.removeAttribute(name);
  }
  for (const [name, value] of wanted) live.setAttribute(name, value === true ? '' : value);
  const set = new Map(plan.properties.map(([p, v, kind]) => [p, kind === 'tools' ? toolFunctions(v) : v]));
  // Everything not carried by an attribute is a property: the chosen value, or back to the default.
  const byAttribute = new Set(model.settings.filter((s) => s.attribute && wanted.has(s.attribute)).map((s) => s.property));
  for (const s of model.settings) {
    if (byAttribute.has(s.property)) continue;
    const value = set.has(s.property) ? set.get(s.property) : s.kind === 'json' || s.kind === 'tools' ? (s.default ?? null) : s.default;
    if (value !== undefined && live[s.property] !== value) live[s.property] = value;
  }
  sheet.replaceSync(styleRules(model.tag, state.css));
}

function update() {
  const state = stateOf(model.tag);
  applyToPreview(state);
  const output = /** @type {HTMLTextAreaElement} */ ($('embed-code'));
  const copy = /** @type {HTMLButtonElement} */ ($('copy-code'));
  if (relay.problems.size) {
    output.value = 'Fix the relay settings marked above to get the code.';
    copy.disabled = true;
    return;
  }
  copy.disabled = false;
  const relayUrl = state.values.relayUrl || `http://127.0.0.1:${relay.port}`;
  const scriptUrl = relay.source === 'cdn' ? `https://cdn.jsdelivr.net/npm/parley-kit@${config.version}/dist/browser/${model.tag}.js` : `${location.origin}/assets/${model.tag}.js`;
  const policy = relayPolicy(model.tag, state.values, config, { agents: relay.agents, models: relay.models, scopes: relay.scopes });
  const code = embedCode({ model, values: state.values, css: state.css, page: state.page, scriptUrl, relayUrl, version: config.version, relay, policy, key: config.key });
  output.value = code.html;
}

/** A relay field: checked by `check` (a message, or undefined when valid), then stored by `store`. */
function relayField(id, check, store) {
  const input = /** @type {HTMLInputElement} */ ($(id));
  const error = $(`${id}-error`);
  input.addEventListener('input', () => {
    const problem = check(input.value.trim());
    error.textContent = problem ?? '';
    error.hidden = !problem;
    if (problem) { input.setAttribute('aria-invalid', 'true'); relay.problems.add(id); } else { input.removeAttribute('aria-invalid'); relay.problems.delete(id); store(input.value.trim()); }
    update();
  });
}

const isOrigin = (value) => /^https?:\/\/[^/?#\s'"<>`]+$/i.test(value) && URL.canParse(value);
const names = (value) => value.split(/[\s,]+/).filter(Boolean);

function buildRelaySettings() {
  /** @type {HTMLInputElement} */ ($('relay-upstream')).value = relay.upstream;
  relayField('relay-origin', (v) => (isOrigin(v) ? undefined : 'An origin: scheme, host and optional port, no path (http://localhost:3000).'), (v) => { relay.origin = new URL(v).origin; });
  relayField('relay-port', (v) => (/^\d{1,5}$/.test(v) && Number(v) <= 65535 ? undefined : 'A port from 0 to 65535.'), (v) => { relay.port = Number(v); });
  relayField('relay-upstream', (v) => (/^https?:\/\/\S+$/i.test(v) && URL.canParse(v) && !/['"<>`]/.test(v) ? undefined : 'An http(s) URL.'), (v) => { relay.upstream = v; });
  const list = (kind) => (v) => (names(v).every((n) => RELAY_NAME.test(n)) ? undefined : `${kind}: letters, digits and _ . : / @ -, separated by commas or spaces.`);
  relayField('relay-agents', list('Agent ids'), (v) => { relay.agents = names(v); });
  relayField('relay-models', list('Model names'), (v) => { relay.models = names(v); });
  const scopes = $('relay-scopes');
  for (const scope of config.scopes) {
    const id = `scope-${scope.replace(/\W/g, '-')}`;
    const box = el('input', { type: 'checkbox', id, value: scope });
    box.addEventListener('change', () => {
      relay.scopes = [...scopes.querySelectorAll('input:checked')].map((b) => /** @type {HTMLInputElement} */ (b).value);
      update();
    });
    scopes.append(el('div', { class: 'switch-row' }, box, el('label', { for: id }, scope)));
  }
  for (const radio of document.querySelectorAll('input[name="script-source"]')) {
    radio.addEventListener('change', () => { relay.source = /** @type {HTMLInputElement} */ (radio).value; update(); });
  }
}

function buildPageSettings() {
  $('page-dir').addEventListener('change', (e) => { stateOf(model.tag).page.dir = /** @type {HTMLSelectElement} */ (e.target).value; update(); });
  $('page-lang').addEventListener('input', (e) => {
    const value = /** @type {HTMLInputElement} */ (e.target).value.trim();
    const ok = value === '' || /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value);
    const error = $('page-lang-error');
    error.textContent = ok ? '' : 'A language tag such as ar, fr or fr-CA.';
    error.hidden = ok;
    if (ok) { e.target.removeAttribute('aria-invalid'); stateOf(model.tag).page.lang = value; update(); } else e.target.setAttribute('aria-invalid', 'true');
  });
  for (const radio of document.querySelectorAll('input[name="page-width"]')) {
    radio.addEventListener('change', () => { $('preview-frame').dataset.width = /** @type {HTMLInputElement} */ (radio).value; });
  }
}

$('copy-code').addEventListener('click', async () => {
  const output = /** @type {HTMLTextAreaElement} */ ($('embed-code'));
  const status = $('copy-status');
  try {
    await navigator.clipboard.writeText(output.value);
    status.textContent = 'Copied the embed code.';
  } catch {
    output.focus();
    output.select();
    status.textContent = 'The browser did not allow copying: the code is selected, press Ctrl+C (⌘C).';
  }
});

buildElementPicker();
buildRelaySettings();
buildPageSettings();
const first = elements.find((e) => e.tag === 'agent-chat') ?? elements[0];
/** @type {HTMLSelectElement} */ ($('element-select')).value = first.tag;
await selectElement(first.tag);
document.body.dataset.ready = 'true';
