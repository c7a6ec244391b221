// The bundle's ad-click attribution decisions (docs/ad-click-attribution.md): built with --report-trackers from the
// reference TDS and Tests/webkit/fixtures/attribution-reference-config.json. While the app names no vendor, the
// conversion hosts decide as before; with a vendor, they are allowed on its site and subdomains and blocked
// elsewhere, both with reason ad-click-attribution; every other host of the tracker decides as before.
//
// usage: node Tests/js/attribution.test.js BUNDLE.js
'use strict';
const assert = require('assert');
const path = require('path');

const bundle = require(path.resolve(process.argv[2]));
assert.deepStrictEqual(bundle.data.adClickAttribution.map(p => p.join(' ')).sort(),
  ['options3.test sub.options3.test', 'robustness1.test robustness1.test', 'standard2.test standard2.test',
   'tracker.test convert.tracker.test'], 'entries naming no tracker (third-party.site) are left out');
const matcher = bundle.createMatcher(bundle.data);
const urls = ['https://convert.tracker.test/px?1', 'https://a.convert.tracker.test/x.js', 'https://tracker.test/other.js',
              'https://standard2.test/anything', 'https://sub.options3.test/y', 'https://options3.test/y'];
const pages = ['https://shop.example/', 'https://www.shop.example/a', 'https://other-shop.example/', 'https://shop.example.evil.test/'];
const before = new Map();
for (const u of urls) for (const p of pages) before.set(u + ' ' + p, matcher.classify(u, p, 'script'));
assert.strictEqual(matcher.attributedVendor(), null);
matcher.setAttributedVendor('WWW.Shop.example');
assert.strictEqual(matcher.attributedVendor(), 'shop.example', 'lowercased, leading www. dropped');
let checked = 0;
for (const u of urls) {
  for (const p of pages) {
    const c = matcher.classify(u, p, 'script');
    const conversion = /^https:\/\/([^/]*\.)?(convert\.tracker\.test|standard2\.test|sub\.options3\.test)\//.test(u);
    if (conversion) {
      const onVendor = /^https:\/\/(www\.)?shop\.example\//.test(p);
      assert.strictEqual(c.reason, 'ad-click-attribution', `${u} on ${p}: ${JSON.stringify(c)}`);
      assert.strictEqual(c.blocked, !onVendor, `${u} on ${p}`);
    } else {
      assert.deepStrictEqual(c, before.get(u + ' ' + p), `${u} on ${p} decides as without an attribution`);
    }
    checked++;
  }
}
matcher.setAttributedVendor(null);
for (const u of urls) for (const p of pages) assert.deepStrictEqual(matcher.classify(u, p, 'script'), before.get(u + ' ' + p));
console.log(`ad-click attribution matcher: ${checked} decisions with an active attribution, ${checked} after it ended: ok`);
