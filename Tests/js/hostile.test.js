// A bundle built from hostile data (quotes, </script>, U+2028/U+2029, backslashes, "__proto__", comment
// terminators in domains, entity names, rules, CNAMEs, allowlist and temp list) must:
//   - parse (it is one valid script), also when inlined in an HTML <script> element (no "</script"),
//   - run no code from the data: evaluating it sets no global,
//   - carry every hostile string exactly, as data.
//
// usage: node Tests/js/hostile.test.js BUNDLE.js EXPECTED.json
//   EXPECTED.json: {"trackers": [domain...], "entities": [name...], "rules": [regex...], "cnames": [[alias, target]...],
//                   "decisions": [{url, page, tracker, surrogate}]}
'use strict';
const assert = require('assert');
const fs = require('fs');
const vm = require('vm');

const [bundlePath, expectedPath] = process.argv.slice(2);
const source = fs.readFileSync(bundlePath, 'utf8');
const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
let checks = 0;

// 1. Nothing that ends an inline <script> or that JSON-in-JS would treat as a line break.
assert.ok(!/<\/script/i.test(source), 'bundle contains </script');
assert.ok(!/<!--/.test(source), 'bundle contains <!--');
assert.ok(!/[\u2028\u2029]/.test(source), 'bundle contains a raw U+2028/U+2029');
checks += 3;

// 2. Evaluated as a classic script in a fresh global without window/module, it defines nothing.
const sandbox = { URL: URL };
vm.createContext(sandbox);
const before = Object.getOwnPropertyNames(sandbox).sort();
new vm.Script(source, { filename: bundlePath }).runInContext(sandbox);
assert.deepStrictEqual(Object.getOwnPropertyNames(sandbox).sort(), before, 'the bundle defined globals');
assert.strictEqual(sandbox.PWNED, undefined);
checks += 2;

// 3. Loaded as a module: the data carries each hostile string exactly.
const m = { exports: {} };
vm.runInNewContext(source, { module: m, URL: URL });
assert.ok(m.exports.data, 'module.exports.data');
const data = m.exports.data;
// The tables decoded in full by the page's own decoder.
const lines = m.exports.createTables(data).all();
const trackerLines = lines.filter(l => l.tracker !== null);
const trackers = trackerLines.map(l => l.key);
for (const d of expected.trackers) { assert.ok(trackers.includes(d), 'tracker ' + JSON.stringify(d)); checks++; }
const entities = trackerLines.filter(l => l.tracker.entity).map(l => l.tracker.entity.name);
for (const e of expected.entities) { assert.ok(entities.includes(e), 'entity ' + JSON.stringify(e)); checks++; }
const rules = [].concat(...trackerLines.map(l => (l.tracker.rules || []).map(r => r.rule)));
for (const r of expected.rules) { assert.ok(rules.includes(r), 'rule ' + JSON.stringify(r)); checks++; }
for (const [a, t] of expected.cnames) {
  assert.ok(lines.some(l => l.key === a && l.cname === t), 'cname ' + JSON.stringify(a)); checks++;
}
// 4. The matcher copes with the hostile data (invalid regexes never match, nothing throws) and still
// decides: EXPECTED.decisions = [{url, page, tracker, surrogate (or null)}].
const matcher = m.exports.createMatcher(data);
for (const d of expected.trackers) {
  matcher.decide('https://' + encodeURIComponent(d) + '/x.js', 'https://site.example/', 'script');
}
for (const c of expected.decisions || []) {
  const d = matcher.decide(c.url, c.page, 'script');
  assert.ok(d && d.tracker === c.tracker, `${c.url}: tracker ${JSON.stringify(d)}`);
  assert.strictEqual(d.action === 'redirect' ? d.surrogate : null, c.surrogate, `${c.url}: ${JSON.stringify(d)}`);
  checks++;
}
// 5. A reporting bundle (the default): the report's entity, displayName and category (hostile strings in the
// fixture: each tracker's category and display name are its owner's name) come back exactly.
if (data.report) {
  // Trackers whose domain a URL can carry as its host (a payload with "/" or "#" in its domain cannot).
  const reachable = d => { try { return new URL('https://' + d + '/').hostname === d; } catch (e) { return false; } };
  const owners = new Map(trackerLines.filter(l => l.tracker.entity && reachable(l.key)).map(l => [l.key, l.tracker.entity.name]));
  assert.ok(owners.size > 0, 'trackers with owners');
  for (const [domain, owner] of owners) {
    const c = matcher.classify('https://' + domain + '/x.js', 'https://site.example/', 'script');
    assert.ok(c, `${domain}: no report`);
    assert.strictEqual(c.entity, owner, `${domain}: entity`);
    assert.strictEqual(c.displayName, owner, `${domain}: displayName`);
    assert.strictEqual(c.category, owner, `${domain}: category`);
    checks++;
  }
}
console.log(`hostile${data.report ? ' (tracker report)' : ''}: ${checks} checks passed`);
