// The reporting bundle's classifier against the one it replaced (before the lookup tables, issue 32), on
// requests generated with a fixed seed from a TDS and config: every answer (decide: action, reason, tracker,
// url, rule, surrogate, cname; classify: the radarblock:tracker fields) must be identical.
//
// usage: node Tests/js/equivalence.test.js NEW.js TDS.json CONFIG.json COUNT [OLD.js]
//   NEW.js: `surrogates` of TDS + CONFIG (reporting is the default).
//   OLD.js: the same built by a radarblock before the tables (`surrogates --report-trackers`). Without it the
//   old classifier is Tests/js/legacy/PageScript-report-v1.js (that runtime, byte for byte) on the DATA it read:
//   the new bundle's tables decoded in full by the page's own decoder (createTables().all()) back into the maps
//   it carried. With it, the decoded maps are also compared with the old bundle's DATA.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const { LEGACY, legacyData } = require('./legacy/legacy-data.js');
const TYPES = ['script', 'image', 'stylesheet', 'xmlhttprequest', 'subdocument', 'font', 'media', 'ping', 'other'];

// The old bundle's maps and the decoded ones carry the same trackers, aliases and entities.
function canonical(v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v && typeof v === 'object') return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}';
  return JSON.stringify(v);
}

function compareData(decoded, old) {
  const byKey = pairs => new Map(pairs.map(p => [p[0], canonical(p[1])]));
  assert.strictEqual(canonical(decoded.allowlist), canonical(old.allowlist), 'allowlist');
  for (const k of ['trackers', 'cnames', 'entities']) {
    const a = byKey(decoded[k]), b = byKey(old[k]);
    assert.strictEqual(a.size, b.size, `${k}: ${a.size} decoded, ${b.size} in the old bundle`);
    for (const [key, v] of b) assert.strictEqual(a.get(key), v, `${k} ${JSON.stringify(key)}`);
  }
  const shown = new Map(decoded.displayNames);
  for (const [name, display] of old.displayNames) {
    assert.strictEqual(shown.has(name) ? shown.get(name) : name, display, `displayName of ${JSON.stringify(name)}`);
  }
}

// A deterministic generator (mulberry32).
function random(seed) {
  return function () {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A URL path a rule may match: the regex with its escapes undone and its operators dropped.
function pathOf(rule) {
  const slash = rule.search(/\\?\//);
  if (slash < 0) return '/';
  return rule.slice(slash).replace(/\\(.)/g, '$1').replace(/[.*+?^$()[\]{}|]/g, '').slice(0, 80) || '/';
}

function requests(tds, config, count, rnd) {
  const pick = a => a[Math.floor(rnd() * a.length)];
  const trackerHosts = Object.keys(tds.trackers);
  const aliases = Object.keys(tds.cnames || {});
  const entityDomains = [].concat(...Object.values(tds.entities || {}).map(e => e.domains || []));
  const features = config.features || {};
  const allowlist = features.trackerAllowlist && features.trackerAllowlist.settings &&
    features.trackerAllowlist.settings.allowlistedTrackers || {};
  const allowRules = [].concat(...Object.values(allowlist).map(t => t.rules || []));
  const sites = [].concat((config.unprotectedTemporary || []).map(e => e.domain),
                          ((features.contentBlocking || {}).exceptions || []).map(e => e.domain),
                          ...allowRules.map(r => r.domains || []), entityDomains.slice(0, 2000));
  const rules = [].concat(...trackerHosts.map(h => (tds.trackers[h].rules || []).map(r => [h, r])));
  const out = [];
  for (let i = 0; i < count; i++) {
    const kind = rnd();
    let host, p = '/x' + Math.floor(rnd() * 1000) + '.js';
    if (kind < 0.45) {
      const [h, r] = pick(rules);
      host = h;
      p = pathOf(r.rule);
    } else if (kind < 0.65) host = pick(trackerHosts);
    else if (kind < 0.72) host = pick(aliases);
    else if (kind < 0.80) {
      const r = pick(allowRules);
      host = r.rule.split('/')[0];
      p = '/' + r.rule.split('/').slice(1).join('/');
    } else if (kind < 0.90) host = pick(entityDomains);
    else host = 'site' + Math.floor(rnd() * 50) + '.example';
    if (rnd() < 0.3) host = pick(['www.', 'cdn.', 'a.b.']) + host;
    const pageKind = rnd();
    const page = pageKind < 0.4 ? pick(sites) : pageKind < 0.55 ? pick(entityDomains)
      : pageKind < 0.65 ? pick(trackerHosts) : 'news' + Math.floor(rnd() * 20) + '.example';
    const scheme = rnd() < 0.9 ? 'https://' : 'http://';
    const unblocked = rnd() < 0.05 ? new Set([pick(['block-ctl-fb', 'block-ctl-yt', 'block-ctl-x'])]) : undefined;
    out.push({ url: scheme + host + p, page: 'https://' + (rnd() < 0.3 ? 'www.' : '') + page + '/', type: pick(TYPES),
               unblocked: unblocked });
  }
  return out;
}

function main() {
  const [newPath, tdsPath, configPath, countText, oldPath] = process.argv.slice(2);
  if (!countText) { console.error('usage: node equivalence.test.js NEW.js TDS.json CONFIG.json COUNT [OLD.js]'); process.exit(2); }
  const fresh = require(path.resolve(newPath));
  assert.ok(fresh.data.report, `${newPath} does not report trackers`);
  const decoded = legacyData(fresh);
  let old, against;
  if (oldPath) {
    old = require(path.resolve(oldPath));
    compareData(decoded, old.data);
    against = oldPath;
  } else {
    old = vm.runInThisContext(fs.readFileSync(LEGACY, 'utf8'), { filename: LEGACY })(decoded, []);
    against = 'the legacy runtime on the decoded tables';
  }
  const newMatcher = fresh.createMatcher(fresh.data), oldMatcher = old.createMatcher(old.data);
  const tds = JSON.parse(fs.readFileSync(tdsPath, 'utf8')), config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  const rnd = random(32);
  let reported = 0, blocked = 0, failures = 0;
  const reasons = new Map();
  for (const r of requests(tds, config, Number(countText), rnd)) {
    const a = newMatcher.classify(r.url, r.page, r.type, r.unblocked), b = oldMatcher.classify(r.url, r.page, r.type, r.unblocked);
    const da = newMatcher.decide(r.url, r.page, r.type, r.unblocked), db = oldMatcher.decide(r.url, r.page, r.type, r.unblocked);
    if (JSON.stringify(a) !== JSON.stringify(b) || JSON.stringify(da) !== JSON.stringify(db)) {
      if (++failures <= 10) console.error(`differs: ${JSON.stringify(r)}\n  new ${JSON.stringify(a)} ${JSON.stringify(da)}\n  old ${JSON.stringify(b)} ${JSON.stringify(db)}`);
      continue;
    }
    if (a) { reported++; if (a.blocked) blocked++; reasons.set(a.reason, (reasons.get(a.reason) || 0) + 1); }
  }
  const spread = [...reasons].sort().map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`equivalence: ${countText} requests against ${against}: ${reported} reported (${blocked} blocked; ${spread}); ` +
              `${failures} difference(s)`);
  if (failures) process.exit(1);
}

main();
