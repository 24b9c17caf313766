// The playground's form controls, built with DOM calls (never markup from strings: descriptions and values are
// text). One control per setting of manifest.js; each calls `onChange(property, value)` with a valid value only.
import { cssValueProblem } from './embed-code.js';

let uid = 0;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children);
  return node;
}

/** The first paragraph of a manifest description, as plain text. */
function summary(text) {
  return String(text ?? '').split(/\n\s*\n/)[0].replace(/\s+/g, ' ').replace(/`/g, '').trim();
}

/** A hint under a control, tied to it with aria-describedby. */
function hint(id, text) {
  return el('p', { id, class: 'hint' }, text);
}

/** An error line; empty and hidden while the value is valid. */
function errorLine(id) {
  return el('p', { id, class: 'error', hidden: true });
}

function showError(input, line, message) {
  line.textContent = message ?? '';
  line.hidden = !message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** What a JSON editor holds: undefined (empty), the value, or an error message. */
export function parseJsonSetting(setting, text) {
  if (!text.trim()) return { value: null };
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (setting.json === 'array' && !Array.isArray(value)) return { error: 'This property takes a JSON array: [ … ].' };
  if (setting.json === 'object' && (value === null || typeof value !== 'object' || Array.isArray(value))) return { error: 'This property takes a JSON object: { … }.' };
  if (/string\[\]/.test(setting.type) && !value.every((v) => typeof v === 'string')) return { error: 'Every item must be a string.' };
  if (setting.kind === 'tools') {
    const bad = Object.keys(value).find((name) => !/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(name));
    if (bad !== undefined) return { error: `"${bad}" is not a function name (letters, digits, _ and -, up to 64).` };
  }
  return { value };
}

/** The control of one setting. `initial` is its current value. */
export function settingControl(setting, initial, onChange) {
  const id = `setting-${setting.name}-${++uid}`;
  const hintId = `${id}-hint`;
  const wrapper = el('div', { class: `field field-${setting.kind}` });
  const description = summary(setting.description);
  const labelText = setting.attribute ?? `${setting.property} (property)`;
  if (setting.kind === 'switch') {
    const input = el('input', { type: 'checkbox', role: 'switch', id, 'aria-describedby': description ? hintId : undefined });
    input.checked = Boolean(initial);
    input.addEventListener('change', () => onChange(setting.property, input.checked));
    wrapper.append(el('div', { class: 'switch-row' }, input, el('label', { for: id }, labelText)));
  } else if (setting.kind === 'select') {
    const select = el('select', { id, 'aria-describedby': description ? hintId : undefined });
    for (const option of setting.options) select.append(el('option', { value: option }, option === '' ? '(none)' : option));
    select.value = String(initial ?? '');
    select.addEventListener('change', () => onChange(setting.property, select.value));
    wrapper.append(el('label', { for: id }, labelText), select);
  } else if (setting.kind === 'json' || setting.kind === 'tools') {
    const errorId = `${id}-error`;
    const area = el('textarea', { id, rows: 4, spellcheck: 'false', 'aria-describedby': `${description ? hintId + ' ' : ''}${errorId}` });
    area.value = initial == null ? '' : JSON.stringify(initial, null, 2);
    const error = errorLine(errorId);
    area.addEventListener('input', () => {
      const parsed = parseJsonSetting(setting, area.value);
      showError(area, error, parsed.error);
      if (!parsed.error) onChange(setting.property, parsed.value);
    });
    const note = setting.kind === 'tools' ? ' JSON here: { "tool_name": what the tool returns }; the code writes the functions.' : ' JSON.';
    wrapper.append(el('label', { for: id }, labelText), area, error);
    if (description || note) wrapper.append(hint(hintId, `${description}${note}`));
    return wrapper;
  } else {
    const input = el('input', { type: setting.kind === 'number' ? 'number' : 'text', id, 'aria-describedby': description ? hintId : undefined, placeholder: setting.default === undefined || setting.default === '' ? undefined : String(setting.default) });
    input.value = initial == null ? '' : String(initial);
    input.addEventListener('input', () => {
      if (setting.kind === 'number' && input.value !== '' && !Number.isFinite(Number(input.value))) return;
      onChange(setting.property, setting.kind === 'number' && input.value !== '' ? Number(input.value) : input.value);
    });
    wrapper.append(el('label', { for: id }, labelText), input);
  }
  if (description) wrapper.append(hint(hintId, description));
  return wrapper;
}

/** A `--parley-*` property of one theme: a text field (empty: the default) and, for colours, a colour picker. */
export function cssControl(property, theme, initial, onChange) {
  const id = `css-${theme}${property.name.replace(/^-+/, '-')}`;
  const errorId = `${id}-error`;
  const input = el('input', { type: 'text', id, placeholder: property.default || undefined, 'aria-describedby': errorId, spellcheck: 'false' });
  input.value = initial ?? '';
  const error = errorLine(errorId);
  const commit = () => {
    const problem = cssValueProblem(input.value);
    showError(input, error, problem);
    if (!problem) onChange(property.name, input.value.trim());
  };
  input.addEventListener('input', commit);
  const row = el('div', { class: 'field css-field' }, el('label', { for: id }, property.name));
  const controls = el('div', { class: 'css-controls' }, input);
  if (property.colour) {
    const picker = el('input', { type: 'color', id: `${id}-picker`, 'aria-label': `${property.name}, ${theme} theme: pick a colour` });
    picker.value = /^#[0-9a-f]{6}$/i.test(initial ?? '') ? initial : /^#[0-9a-f]{6}$/i.test(property.default) ? property.default : '#000000';
    picker.addEventListener('input', () => { input.value = picker.value; commit(); });
    controls.append(picker);
  }
  row.append(controls, error);
  return row;
}

export { el };
