// The bundle's click-to-load decisions on DuckDuckGo's click-to-load reference tests: with the rule actions the
// user unblocked, the page-side matcher must say redirect / block / ignore exactly as the test expects, and the
// bundle must say which rule actions are supported.
//
// With --disabled (a bundle built from the same config with contentBlocking disabled), the bundle must be inert:
// every decision is "ignore".
//
// usage: node Tests/js/clicktoload.test.js BUNDLE.js TESTS.json [--disabled]   (BUNDLE built with --all-trackers
// and the click-to-load reference config)
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const [bundlePath, testsPath, flag] = process.argv.slice(2);
const disabled = flag === '--disabled';
const bundle = require(path.resolve(bundlePath));
const matcher = bundle.createMatcher(bundle.data);
assert.deepStrictEqual(bundle.data.clickToLoad.supported.map(p => p[0]), ['block-ctl-fb', 'block-ctl-fb2', 'block-ctl-third']);
let passed = 0, failed = 0;
for (const [, group] of Object.entries(JSON.parse(fs.readFileSync(testsPath, 'utf8')))) {
  for (const t of group.tests) {
    const d = matcher.decide(t.requestUrl, t.siteUrl, 'script', new Set(t.userUnblockedRuleActions));
    const got = d === null ? 'ignore' : d.action;
    // The tracker report's reason for the same request: a blocking click-to-load rule says so, a surrogate
    // says surrogate, an allowed one names a non-blocking reason (an exempted rule: click-to-load or first-party).
    const c = matcher.classify(t.requestUrl, t.siteUrl, 'script', new Set(t.userUnblockedRuleActions));
    const wantReasons = disabled ? ['unprotected-site'] : { block: ['click-to-load'], redirect: ['surrogate'],
                                                            ignore: ['click-to-load', 'first-party', 'default', 'ignore-rule'] }[t.expectedOutcome];
    const reasonOK = c === null ? got === 'ignore' : wantReasons.includes(c.reason) && c.blocked === (got !== 'ignore');
    if (got === (disabled ? 'ignore' : t.expectedOutcome) && reasonOK) passed++;
    else { failed++; console.error(`FAIL ${t.name}: expected ${t.expectedOutcome}, got ${got} (${d && d.reason}; report ${JSON.stringify(c)})`); }
  }
}
console.log(`click-to-load matcher${disabled ? ' (contentBlocking disabled: inert)' : ''}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
