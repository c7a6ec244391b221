"""scripts/webkit/store_files.py: WebKit's file name of an identifier (the real-WebKit step `store file names` of
scripts/test-webkit.sh checks it against WebKit and radarblock)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from webkit.store_files import file_name  # noqa: E402


class StoreFilesTests(unittest.TestCase):
    def test_plain_identifiers_stay_as_they_are(self):
        self.assertEqual(file_name("radarblock-main_0123abcd"), "ContentRuleList-radarblock-main_0123abcd")

    def test_controls_space_del_and_reserved_characters_are_percent_escaped(self):
        self.assertEqual(file_name('a b\t\x7f"%*/:<>?\\|'), "ContentRuleList-a%20b%09%7F%22%25%2A%2F%3A%3C%3E%3F%5C%7C")

    def test_other_characters_stay_raw(self):
        self.assertEqual(file_name("é~#[]"), "ContentRuleList-é~#[]")


if __name__ == "__main__":
    unittest.main()
