"""Fuzz/modules.py: the fuzz targets' modules in build order, from a package description like SwiftPM's."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fuzz"))
import modules  # noqa: E402


def target(name, kind, deps=None, module_type="SwiftTarget"):
    return {
        "name": name,
        "type": kind,
        "module_type": module_type,
        "path": "Sources/" + name,
        "target_dependencies": deps,
    }


class FuzzModulesTests(unittest.TestCase):
    def describe(self, imports, targets):
        """Runs modules.py on a package whose Fuzz/targets/t.swift imports IMPORTS; returns its lines."""
        root = tempfile.mkdtemp(prefix="rb-fuzz-modules-")
        os.makedirs(os.path.join(root, "Fuzz", "targets"))
        with open(os.path.join(root, "Fuzz", "targets", "t.swift"), "w") as f:
            f.write("".join("import %s\n" % name for name in imports))
        with open(os.path.join(root, "Fuzz", "Support.swift"), "w") as f:
            f.write("import Foundation\n")
        path = os.path.join(root, "package.json")
        with open(path, "w") as f:
            json.dump({"path": root, "targets": targets}, f)
        out = io.StringIO()
        with redirect_stdout(out):
            modules.main(["modules.py", path])
        return out.getvalue().splitlines()

    def test_dependencies_come_first_and_only_what_the_targets_need(self):
        lines = self.describe(
            ["Engine"],
            [
                target("radarblock", "executable", ["Engine", "Pipeline"]),
                target("Pipeline", "library", ["Engine"]),
                target("Engine", "library", ["Rules", "CSys"]),
                target("Rules", "library", ["JSON", "CICU"]),
                target("JSON", "library"),
                target("CSys", "library", None, "ClangTarget"),
                target("CICU", "system-target", None, "SystemLibraryTarget"),
                target("EngineTests", "test", ["Engine"]),
            ],
        )
        self.assertEqual(
            lines,
            [
                "swift JSON Sources/JSON",
                "system CICU Sources/CICU",
                "swift Rules Sources/Rules",
                "c CSys Sources/CSys",
                "swift Engine Sources/Engine",
            ],
        )

    def test_a_module_kind_the_build_cannot_make_fails(self):
        with self.assertRaises(SystemExit) as e:
            self.describe(["Macro"], [target("Macro", "library", None, "PluginTarget")])
        self.assertIn("Macro is a PluginTarget", str(e.exception))


if __name__ == "__main__":
    unittest.main()
