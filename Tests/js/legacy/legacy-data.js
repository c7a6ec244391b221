// The classifier before the lookup tables (issue 32), kept for the equivalence check and the bench:
// PageScript-report-v1.js is that runtime byte for byte, and legacyData gives it the maps it read, decoded from a
// current bundle by the page's own decoder.
//
// usage (a whole bundle for the bench): node Tests/js/legacy/legacy-data.js NEW.js OUT.js
'use strict';
const fs = require('fs');
const path = require('path');

const LEGACY = path.join(__dirname, 'PageScript-report-v1.js');

// The maps the old page script read, from the new DATA.
function legacyData(api) {
  const data = api.data, tables = api.createTables(data);
  const trackers = [], cnames = [], entities = new Map(), displayNames = new Map();
  function entity(e) {
    entities.set(e.name, e.domains);
    if (e.displayName !== e.name) displayNames.set(e.name, e.displayName);
  }
  for (const line of tables.all()) {
    if (line.cname !== null) cnames.push([line.key, line.cname]);
    if (line.tracker === null) continue;
    const t = Object.assign({}, line.tracker);
    if (t.entity !== undefined) { entity(t.entity); t.owner = t.entity.name; delete t.entity; }
    trackers.push([line.key, t]);
  }
  for (const [name] of data.entityRefs || []) entity(tables.entityNamed(name));
  const old = Object.assign({}, data, { trackers: trackers, cnames: cnames, entities: [...entities],
                                        displayNames: [...displayNames] });
  for (const k of ['hosts', 'categories', 'entityRefs']) delete old[k];
  if (data.allowlist !== undefined) old.allowlist = api.decodeAllowlist(data.allowlist);
  return old;
}

// NEW.js rebuilt around the legacy runtime: its surrogate functions, the legacy maps as DATA (JSON, "</" escaped).
function legacyBundle(newPath) {
  const source = fs.readFileSync(newPath, 'utf8');
  const api = require(path.resolve(newPath));
  // The runtime's last line is "})", then "(" + DATA (one line: JSON has no raw newline) + ", [" and the functions.
  const dataLine = source.indexOf('\n})(') + 1;
  const functions = source.slice(source.indexOf('\n', dataLine) + 1);
  const runtime = fs.readFileSync(LEGACY, 'utf8').split('\n').filter(l => !/^\s*\/\//.test(l)).join('\n').trimEnd();
  const data = JSON.stringify(legacyData(api)).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return '/* radarblock surrogates.js with the legacy tracker report (bench only) */\n' + runtime + '(' + data + ', [\n' + functions;
}

module.exports = { LEGACY, legacyData, legacyBundle };

if (require.main === module) {
  const [newPath, outPath] = process.argv.slice(2);
  if (!outPath) { console.error('usage: node legacy-data.js NEW.js OUT.js'); process.exit(2); }
  fs.writeFileSync(outPath, legacyBundle(newPath));
}
