// The tracker classifier of the real page script (Sources/Surrogates/PageScript.js, evaluated directly) on a
// table that the Swift engine answers too: one row per request, each with its expected report fields.
//
// usage: node Tests/js/classifier.test.js requests TABLE.jsonl > REQUESTS.jsonl
//          the table as `radarblock match --requests` lines (the Swift engine's side)
//        node Tests/js/classifier.test.js check BUNDLE.js TABLE.jsonl ANSWERS.jsonl
//          BUNDLE.js: `surrogates` (reporting, the default) of the table's TDS/config (its DATA is what the page gets);
//          ANSWERS.jsonl: `radarblock match` on the rule list `convert` wrote for the same inputs.
//          Every row: the classifier's fields equal the row's (fields the row omits are not compared, a
//          `tracker: null` row expects no report at all), and `blocked` equals the engine's answer.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const PAGE_SCRIPT = path.join(__dirname, '..', '..', 'Sources', 'Surrogates', 'PageScript.js');
// TDS resource type -> the WebKit resource type `radarblock match` takes (RuleBuilder/ResourceTypes.swift).
const WEBKIT_TYPE = { script: 'script', image: 'image', stylesheet: 'style-sheet', xmlhttprequest: 'fetch',
                      subdocument: 'child-document', font: 'font', media: 'media', websocket: 'websocket' };
const FIELDS = ['tracker', 'entity', 'displayName', 'category', 'blocked', 'reason', 'surrogate'];

function readTable(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter(l => l.trim()).map((l, i) => {
    const row = JSON.parse(l);
    if (!WEBKIT_TYPE[row.type]) throw new Error(`${file}:${i + 1}: unknown type ${row.type}`);
    return row;
  });
}

// The page script as a function of DATA, exactly as the bundle embeds it.
function pageScript() {
  return vm.runInThisContext(fs.readFileSync(PAGE_SCRIPT, 'utf8'), { filename: PAGE_SCRIPT });
}

function requests(tablePath) {
  for (const row of readTable(tablePath)) {
    process.stdout.write(JSON.stringify({ url: row.url, topURL: row.page, resourceType: WEBKIT_TYPE[row.type] }) + '\n');
  }
}

function check(bundlePath, tablePath, answersPath) {
  const bundle = require(path.resolve(bundlePath));
  if (!bundle.data.report) throw new Error(`${bundlePath} does not report trackers (built with --no-report-trackers)`);
  const api = pageScript()(bundle.data, []);
  const matcher = api.createMatcher(bundle.data);
  const rows = readTable(tablePath);
  const answers = fs.readFileSync(answersPath, 'utf8').split('\n').filter(l => l.trim()).map(l => JSON.parse(l));
  if (answers.length !== rows.length) throw new Error(`${answersPath}: ${answers.length} answers for ${rows.length} rows`);
  let failures = 0;
  const reasons = new Set();
  rows.forEach((row, i) => {
    const got = matcher.classify(row.url, row.page, row.type);
    const engineBlocked = (answers[i].actions || []).some(a => a.type === 'block');
    const problems = [];
    if (answers[i].error) problems.push(`engine: ${answers[i].error}`);
    if (row.tracker === null && row.reason === undefined) {
      if (got !== null) problems.push(`reported ${JSON.stringify(got)}, expected no report`);
      if (engineBlocked) problems.push('the engine blocks a request the page does not report');
    } else if (got === null) {
      problems.push('no report');
    } else {
      for (const k of FIELDS) {
        if (Object.prototype.hasOwnProperty.call(row, k) && got[k] !== row[k]) problems.push(`${k} ${JSON.stringify(got[k])}, expected ${JSON.stringify(row[k])}`);
      }
      if (got.blocked !== engineBlocked) problems.push(`blocked ${got.blocked} but the Swift engine ${engineBlocked ? 'blocks' : 'allows'}`);
      reasons.add(got.reason);
    }
    if (problems.length) { failures++; console.error(`FAIL ${row.name}: ${row.url} on ${row.page}: ${problems.join('; ')}`); }
  });
  console.log(`classifier: ${rows.length} rows, ${rows.length - failures} agree with the table and the Swift engine; ` +
              `reasons seen: ${[...reasons].sort().join(', ')}; ${failures} failure(s)`);
  process.exit(failures ? 1 : 0);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'requests' && args.length === 1) requests(args[0]);
else if (mode === 'check' && args.length === 3) check(args[0], args[1], args[2]);
else { console.error('usage: classifier.test.js requests TABLE.jsonl | check BUNDLE.js TABLE.jsonl ANSWERS.jsonl'); process.exit(2); }
