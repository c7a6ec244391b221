// Page-side matcher of surrogates.js against DuckDuckGo's reference suite
// (privacy-reference-tests tracker-radar-tests/TR-domain-matching/domain_matching_tests.json).
//
// usage: node Tests/js/reference.test.js FULL.js SUBSET.js domain_matching_tests.json
//   FULL.js   bundle built with --all-trackers from tracker_radar_reference.json + its surrogates.txt:
//             every test's TDS action (block / ignore / redirect / null) must match expectAction,
//             except the deviations listed below (each must still deviate, so the list stays true).
//   SUBSET.js the normal bundle (surrogate trackers only): for every test, the bundle decides "surrogate"
//             exactly when expectAction is "redirect", and running that surrogate makes expectExpression true.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

// Deviations of the full matcher from the reference, all in tests the suite itself excepts on iOS. None today:
// the page uncloaks exactly the alias host, as the rule list's alias rules do (WebKit allows
// "random allows sub.cname tracker", so a report saying blocked would be false).
const KNOWN_DEVIATIONS = {};
const PAGE_SCRIPT = path.join(__dirname, '..', '..', 'Sources', 'Surrogates', 'PageScript.js');
const BLOCKING = ['rule', 'default', 'request-blocklist', 'click-to-load', 'surrogate'];
const NON_BLOCKING = ['default', 'ignore-rule', 'first-party', 'tracker-allowlist', 'unprotected-site', 'click-to-load'];

function load(file) {
  delete require.cache[require.resolve(path.resolve(file))];
  return require(path.resolve(file));
}

function main() {
  const [fullPath, subsetPath, testsPath] = process.argv.slice(2);
  if (!testsPath) {
    console.error('usage: node reference.test.js FULL.js SUBSET.js domain_matching_tests.json');
    process.exit(2);
  }
  const suites = JSON.parse(fs.readFileSync(testsPath, 'utf8'));
  const tests = [];
  for (const key of Object.keys(suites)) for (const t of suites[key].tests) tests.push(Object.assign({ suite: key }, t));

  const full = load(fullPath);
  const subset = load(subsetPath);
  assert.strictEqual(full.eventName, 'radarblock:surrogate');
  const fullMatcher = full.createMatcher(full.data);
  // The tracker report, from the real page script file evaluated with the full bundle's DATA.
  const reporter = vm.runInThisContext(fs.readFileSync(PAGE_SCRIPT, 'utf8'))(full.data, []).createMatcher(full.data);
  let reports = 0;
  const subsetMatcher = subset.createMatcher(subset.data);

  let failures = 0, passed = 0;
  const deviationsSeen = new Set();
  function fail(t, message) {
    failures++;
    console.error(`FAIL [${t.suite}] ${t.name}: ${message}`);
  }

  for (const t of tests) {
    // 1. Full TDS semantics.
    const d = fullMatcher.decide(t.requestURL, t.siteURL, t.requestType);
    const action = d ? d.action : null;
    const expected = t.expectAction === undefined ? null : t.expectAction;
    if (Object.prototype.hasOwnProperty.call(KNOWN_DEVIATIONS, t.name)) {
      if (action === KNOWN_DEVIATIONS[t.name] && action !== expected) deviationsSeen.add(t.name);
      else fail(t, `listed deviation no longer deviates as listed: got ${action}, reference ${expected}`);
    } else if (action !== expected) {
      fail(t, `full matcher: got ${action} (${d && d.reason}), expected ${expected}`);
    } else {
      passed++;
    }

    // 1b. The tracker report: none for a non-tracker; blocked exactly for block/redirect, with a reason that
    // says so (redirect -> surrogate).
    const c = reporter.classify(t.requestURL, t.siteURL, t.requestType);
    const wantBlocked = expected === 'block' || expected === 'redirect';
    if (expected === null) {
      if (c !== null) fail(t, `tracker report for a non-tracker: ${JSON.stringify(c)}`); else reports++;
    } else if (c === null || c.blocked !== wantBlocked || !(wantBlocked ? BLOCKING : NON_BLOCKING).includes(c.reason) ||
               (c.reason === 'surrogate') !== (expected === 'redirect')) {
      fail(t, `tracker report ${JSON.stringify(c)} for expectAction ${expected}`);
    } else {
      reports++;
    }

    // 2. The bundle's subset: surrogate decision only.
    const s = subsetMatcher.decide(t.requestURL, t.siteURL, t.requestType);
    const wantsSurrogate = expected === 'redirect';
    const isSurrogate = !!(s && s.action === 'redirect');
    if (isSurrogate !== wantsSurrogate) {
      fail(t, `bundle subset: surrogate ${isSurrogate} (${s && s.action} ${s && s.reason}), expected ${wantsSurrogate}`);
      continue;
    }
    if (wantsSurrogate) {
      // Run the surrogate the bundle would run and check the test's expression.
      const index = subset.data.surrogates.indexOf(s.surrogate);
      assert.ok(index >= 0, `surrogate ${s.surrogate} is in the bundle`);
      const sandboxGlobals = Object.keys(globalThis);
      globalThis.window = globalThis;
      try {
        subset.surrogateFunctions[index].call(globalThis);
        const ok = vm.runInThisContext(t.expectExpression);
        if (ok !== true) fail(t, `expectExpression ${t.expectExpression} is ${ok} after running ${s.surrogate}`);
      } finally {
        for (const k of Object.keys(globalThis)) if (!sandboxGlobals.includes(k)) delete globalThis[k];
      }
    }
  }
  for (const name of Object.keys(KNOWN_DEVIATIONS)) {
    if (!tests.some(t => t.name === name)) { failures++; console.error(`FAIL listed deviation "${name}" is not in the suite`); }
  }
  const redirects = tests.filter(t => t.expectAction === 'redirect').length;
  console.log(`reference: ${tests.length} tests, full matcher ${passed} match + ${deviationsSeen.size} listed deviation(s); ` +
    `tracker report ${reports} agree; ` +
    `bundle subset: ${redirects} surrogate cases, ${tests.length - redirects} without surrogate; ${failures} failure(s)`);
  process.exit(failures ? 1 : 0);
}

main();
