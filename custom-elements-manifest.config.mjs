// Custom elements manifest (custom-elements.json), made from the elements' JSDoc: `npm run analyze`.
// `packagejson: false`: package.json's `customElements` stays pointed at the committed file, even when
// the freshness check writes to another directory.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.styles.ts'],
  litelement: true,
  packagejson: false,
};
