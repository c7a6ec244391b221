"""scripts/bench/webkit_measure.py reads `radarblock compile --engine webkit --format json`: a stand-in radarblock
prints the report (and writes a store file with WebKit's header), and the benchmark's figures are the report's."""

import json
import os
import stat
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench"))
import webkit_measure  # noqa: E402

# The stand-in: writes a store file of version 21 with sections of 10, 20, 30, 40 and 50 bytes after its 64-byte
# header, and prints REPORT with "file" set to it. argv: compile RULES --engine webkit -o STORE --name NAME ...
STAND_IN = textwrap.dedent(
    """\
    #!%s
    import json, os, struct, sys
    args = sys.argv[1:]
    store, name = args[args.index("-o") + 1], args[args.index("--name") + 1]
    os.makedirs(store, exist_ok=True)
    path = os.path.join(store, "ContentRuleList-" + name)
    with open(path, "wb") as f:
        f.write(struct.pack("<I5Q", 21, 10, 20, 30, 40, 50).ljust(64, b"\\0") + bytes(150))
    report = json.loads(os.environ["REPORT"])
    if "file" in report:
        report["file"] = path
    print(json.dumps(report) if "--format" in args else os.environ.get("SENTENCE", ""))
    """
)

REPORT = {
    "file": "",
    "webkitVersion": "2.50.6",
    "bytes": 214,
    "seconds": 0.125,
    "peakRSSKB": 70000,
    "rssBeforeKB": 61000,
    "cpuSeconds": 0.25,
}


class WebKitMeasureTests(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="rb-measure-")
        self.rb = os.path.join(self.work, "radarblock")
        with open(self.rb, "w") as f:
            f.write(STAND_IN % sys.executable)
        os.chmod(self.rb, os.stat(self.rb).st_mode | stat.S_IXUSR)
        self.rules = os.path.join(self.work, "rules.json")
        with open(self.rules, "w") as f:
            f.write("[]")

    def tearDown(self):
        import shutil

        shutil.rmtree(self.work)

    def compile_with(self, report):
        os.environ["REPORT"] = json.dumps(report)
        return webkit_measure.webkit_compile(self.rb, self.rules, "list", self.work)

    def test_figures_are_the_reports(self):
        r = self.compile_with(REPORT)
        self.assertEqual(r["version"], "2.50.6")
        self.assertEqual(r["bytes"], 214)
        self.assertEqual(r["seconds"], 0.125)
        self.assertEqual(r["cpuSeconds"], 0.25)
        self.assertEqual(r["rssBeforeKB"], 61000)
        # Peak RSS is the process's, as /usr/bin/time saw it, not the report's.
        self.assertGreater(r["rssKB"], 0)
        self.assertNotEqual(r["rssKB"], 70000)
        self.assertEqual(
            r["sections"],
            {"version": 21, "source": 10, "actions": 20, "urlFilters": 30, "topURLFilters": 40, "frameURLFilters": 50},
        )

    def test_a_missing_key_fails_naming_the_keys(self):
        report = dict(REPORT)
        del report["cpuSeconds"]
        with self.assertRaisesRegex(webkit_measure.Failed, "expected the keys file, webkitVersion"):
            self.compile_with(report)

    def test_an_extra_key_fails(self):
        with self.assertRaises(webkit_measure.Failed):
            self.compile_with(dict(REPORT, memoryKB=1))

    def test_the_human_sentence_is_not_read(self):
        with self.assertRaisesRegex(webkit_measure.Failed, "printed no JSON object"):
            webkit_measure.compile_report(
                "store/ContentRuleList-x: WebKit 2.50.6, 214 bytes, compiled in 0.125 s, peak RSS 70000 KiB"
            )


if __name__ == "__main__":
    unittest.main()
