"""WebKit's content rule list store on disk: the file name WebKit gives an identifier.

WebKit's own rule (APIContentRuleListStore.cpp, encodeForFileName), written once for the Python side; radarblock's
Swift side has its own copy, and scripts/test-webkit.sh (store file names) checks the three agree on one identifier
that needs every kind of escape. No GObject import here: benchmarks and shell checks use it without a display.
"""

PREFIX = "ContentRuleList-"
# Escaped besides the controls and space (<= 0x20) and DEL: the characters a file name may not hold somewhere.
_ESCAPED = set('"%*/:<>?\\|')


def file_name(identifier):
    """ContentRuleList-<identifier>, each escaped character as %XX (uppercase hex); anything else raw (UTF-8 on disk).
    An unpaired UTF-16 surrogate (WebKit: %+XXXX) cannot occur in the identifiers radarblock writes."""
    out = []
    for ch in identifier:
        c = ord(ch)
        out.append("%%%02X" % c if c <= 0x20 or c == 0x7F or ch in _ESCAPED else ch)
    return PREFIX + "".join(out)
