// Every securitypolicyviolation of the page, as plain records (window.cspViolations), also logged to the console.
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  const v = { directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber, column: e.columnNumber, sample: e.sample };
  window.cspViolations.push(v);
  console.error('[csp-check] violation', JSON.stringify(v));
}, true);
