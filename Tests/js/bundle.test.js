// Structural checks of any built bundle (e.g. the one for the shared iOS TDS):
//   - every rule regex and allowlist regex compiles as a JavaScript RegExp (a regex that does not would
//     silently never match in the page),
//   - every surrogate named by a rule has a function, and there is one function per name,
//   - optional: URL cases that must (not) get a surrogate, as JSON lines {url, page, surrogate|null}.
//
// usage: node Tests/js/bundle.test.js BUNDLE.js [CASES.jsonl]
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const [bundlePath, casesPath] = process.argv.slice(2);
const bundle = require(path.resolve(bundlePath));
const data = bundle.data;
let checks = 0, failures = 0;

assert.strictEqual(bundle.surrogateFunctions.length, data.surrogates.length, 'one function per surrogate name');
for (const f of bundle.surrogateFunctions) assert.strictEqual(typeof f, 'function');
checks++;

// The tables decoded in full by the page's own decoder.
const trackers = bundle.createTables(data).all().filter(l => l.tracker !== null).map(l => [l.key, l.tracker]);
for (const [domain, t] of trackers) {
  for (const [i, r] of (t.rules || []).entries()) {
    const source = r.rule.startsWith('http') ? r.rule : '^[^:]+://+([^:/]+\\.)?' + r.rule;
    try { new RegExp(source, 'i'); checks++; } catch (e) { failures++; console.error(`FAIL ${domain} rule ${i}: ${e.message}`); }
    if (r.surrogate !== undefined && !data.surrogates.includes(r.surrogate)) {
      failures++; console.error(`FAIL ${domain} rule ${i}: surrogate ${r.surrogate} has no function`);
    }
  }
}
for (const e of bundle.decodeAllowlist(data.allowlist || '')) {
  try { new RegExp(e.regex, 'i'); checks++; } catch (err) { failures++; console.error(`FAIL allowlist ${e.regex}: ${err.message}`); }
}

if (casesPath) {
  const matcher = bundle.createMatcher(data);
  for (const line of fs.readFileSync(casesPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const c = JSON.parse(line);
    const d = matcher.decide(c.url, c.page, 'script');
    const got = d && d.action === 'redirect' ? d.surrogate : null;
    if (got !== c.surrogate) { failures++; console.error(`FAIL ${c.url} on ${c.page}: surrogate ${got}, expected ${c.surrogate} (${d && d.reason})`); }
    else checks++;
  }
}
console.log(`bundle: ${data.surrogates.length} surrogates, ${trackers.length} trackers; ${checks} checks passed, ${failures} failure(s)`);
process.exit(failures ? 1 : 0);
