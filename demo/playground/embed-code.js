// The embed code the playground writes: the CDN tag pinned to the kit's version, the element with the chosen
// attributes, a script setting the chosen properties, a <style> block with the chosen custom properties, and the
// `parley-relay` command with an equivalent config file. Pure functions (no DOM): the page and its test use them.

/** An agent id or model name as the relay accepts it (src/relay/config.ts); nothing a shell or HTML would read. */
export const RELAY_NAME = /^(\*|[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,199})$/;

/**
 * What the element gets: attributes (`true` for a bare boolean attribute) and properties set from a script.
 * `values` maps a setting's property name to its value; a value equal to the default is left out.
 */
export function elementPlan(model, values) {
  const attributes = [];
  const properties = [];
  for (const setting of model.settings) {
    const value = values[setting.property];
    if (value === undefined || value === null || value === '') continue;
    if (setting.kind === 'switch') {
      if (value === Boolean(setting.default)) continue;
      // A boolean attribute can only turn on; a default of true is turned off by the property.
      if (value && setting.attribute) attributes.push([setting.attribute, true]);
      else properties.push([setting.property, value, setting.kind]);
    } else if (setting.kind === 'json' || setting.kind === 'tools') {
      properties.push([setting.property, value, setting.kind]);
    } else {
      if (String(value) === String(setting.default ?? '')) continue;
      if (setting.attribute) attributes.push([setting.attribute, String(value)]);
      else properties.push([setting.property, value, setting.kind]);
    }
  }
  return { attributes, properties };
}

/** `value` for an HTML attribute between double quotes. */
export function escapeAttribute(value) {
  return String(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `value` as a JavaScript literal that is safe inside a <script> element. */
export function scriptLiteral(value) {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A CSS value the playground accepts: nothing that could end the declaration, the rule or the <style> element. */
export function cssValueProblem(value) {
  if (/[;{}<>\\]|\/\*|[\r\n]/.test(value)) return 'A value cannot contain ; { } < > \\, a comment or a line break.';
  return undefined;
}

/** The <style> rules: the light values on the element, the dark ones for theme="dark" and a dark system theme. */
export function styleRules(tag, css) {
  const block = (selector, entries, indent = '') => `${indent}${selector} {\n${entries.map(([n, v]) => `${indent}  ${n}: ${v};`).join('\n')}\n${indent}}`;
  const light = Object.entries(css.light ?? {}).filter(([, v]) => v);
  const dark = Object.entries(css.dark ?? {}).filter(([, v]) => v);
  const rules = [];
  if (light.length) rules.push(block(tag, light));
  if (dark.length) {
    rules.push(block(`${tag}[theme="dark"]`, dark));
    rules.push(`@media (prefers-color-scheme: dark) {\n${block(`${tag}:not([theme="light"])`, dark, '  ')}\n}`);
  }
  return rules.join('\n');
}

/**
 * The relay's policy for the element as set: its agents, models and scopes (which operations its requests use),
 * plus the extra ones chosen.
 */
export function relayPolicy(tag, values, config, extra = {}) {
  const agents = new Set();
  const models = new Set();
  const scopes = new Set();
  const defaults = config.defaultModels ?? {};
  const add = (set, value) => { if (typeof value === 'string' && value) set.add(value); };
  if (tag === 'agent-chat') {
    scopes.add('conversations');
    if (values.agentId) { agents.add(values.agentId); scopes.add('agents:read'); }
    add(models, values.model);
    if (values.speakReplies || values.handsFree) scopes.add('speech');
    if (values.voiceInput || values.handsFree) { scopes.add('transcription'); add(models, values.voiceOptions?.model || defaults.realtime); }
  } else if (tag === 'speech-player') {
    scopes.add('speech');
    add(models, values.model);
  } else if (tag === 'audio-transcriber') {
    scopes.add('transcription');
    add(models, values.model || defaults.transcription);
    add(models, values.realtimeModel || defaults.realtime);
  } else if (tag === 'doc-ocr-viewer') {
    scopes.add('ocr');
    add(models, values.model || defaults.ocr);
  } else {
    scopes.add('conversations');
  }
  for (const a of extra.agents ?? []) agents.add(a);
  for (const m of extra.models ?? []) models.add(m);
  for (const s of extra.scopes ?? []) scopes.add(s);
  return { agents: [...agents], models: [...models], scopes: [...scopes] };
}

/** A word for a POSIX shell: as is when it is plain, else in single quotes. */
function shellWord(word) {
  return /^[A-Za-z0-9_./:@=,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The key part of the relay command: the local platform's dev key as is, or the variable to export first. */
function keyPrefix(key) {
  if (key && 'value' in key) return `PLATFORM_API_KEY=${shellWord(key.value)} `;
  if (key && key.env && key.env !== 'PLATFORM_API_KEY') return `PLATFORM_API_KEY="$${key.env}" `;
  return '';
}

/** `parley-relay` with flags, the same settings as a config file, and the command that runs the file. */
export function relayCommands(relay, policy, key) {
  const flags = ['--port', String(relay.port), '--upstream', relay.upstream, '--allow-origin', relay.origin];
  for (const a of policy.agents) flags.push('--agent', a);
  for (const m of policy.models) flags.push('--model', m);
  for (const s of policy.scopes) flags.push('--scope', s);
  const prefix = keyPrefix(key);
  const command = `${prefix}npx parley-relay ${flags.map(shellWord).join(' ')}`;
  const file = { port: relay.port, upstream: relay.upstream, allowedOrigins: [relay.origin], agents: policy.agents, models: policy.models, scopes: policy.scopes };
  const configFile = JSON.stringify(file, null, 2);
  const configCommand = `${prefix}npx parley-relay --config relay.json`;
  return { command, configFile, configCommand };
}

/**
 * The whole snippet. `options`: model (the element), values, css ({ light, dark }), page ({ dir, lang }),
 * scriptUrl (the CDN or this server's /assets), relayUrl (what the element talks to), relay + policy + key (the
 * relay commands), version.
 */
export function embedCode(options) {
  const { model, values, css, page, scriptUrl, relayUrl, version } = options;
  const plan = elementPlan(model, { ...values, relayUrl: '' });
  const attributes = [['relay-url', relayUrl], ...plan.attributes];
  if (page?.dir) attributes.push(['dir', page.dir]);
  if (page?.lang) attributes.push(['lang', page.lang]);
  const attributeText = attributes.map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`)).join('');
  const lines = [`<!-- parley-kit ${version}: ${model.tag}, written by the playground -->`, `<script type="module" src="${escapeAttribute(scriptUrl)}"></script>`];
  const style = styleRules(model.tag, css);
  if (style) lines.push('<style>', style, '</style>');
  lines.push(`<${model.tag}${attributeText}></${model.tag}>`);
  if (plan.properties.length) {
    lines.push('<script type="module">', `  const element = document.querySelector(${scriptLiteral(model.tag)});`);
    for (const [property, value, kind] of plan.properties) lines.push(`  element.${property} = ${kind === 'tools' ? toolsLiteral(value) : scriptLiteral(value)};`);
    lines.push('</script>');
  }
  const { command, configFile, configCommand } = relayCommands(options.relay, options.policy, options.key);
  lines.push('<!--', `The relay, on your backend, where parley-kit is installed (npm install parley-kit@${version}):`, '', `  ${command}`, '',
    'or the same settings as a file, relay.json:', '', configFile.replace(/^/gm, '  '), '', `  ${configCommand}`, '-->');
  return { html: lines.join('\n') + '\n', command, configFile, configCommand };
}

/** Tools as functions returning the JSON chosen for each (a stand-in for the site's own code). */
function toolsLiteral(tools) {
  const entries = Object.entries(tools).map(([name, result]) => `    ${scriptLiteral(name)}: (args) => (${scriptLiteral(result)}),`);
  return `{\n${entries.join('\n')}\n  }`;
}

/** The tools of the preview: each a function returning its chosen JSON (what the snippet's script writes). */
export function toolFunctions(tools) {
  return Object.fromEntries(Object.entries(tools).map(([name, result]) => [name, () => structuredClone(result)]));
}
