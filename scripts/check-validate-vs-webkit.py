#!/usr/bin/env python3
"""Does `radarblock validate` agree with real WebKit? Runs every case below through both
`radarblock validate --json` and WebKit's own compiler (`scripts/webkit-check compile-batch`, i.e.
WebKitUserContentFilterStore) and checks that they agree: valid vs invalid, and WebKit's message == ours.

Cases: every ContentExtensionError reachable from JSON, the order-of-checks subtleties, WTF-JSON dialect
details, redirect URL validity, and css-display-none selectors (a list whose only rule is the css rule:
WebKit skips a rule whose selector it rejects, so a rejected selector shows up as JSONContainsNoRules).

  scripts/check-validate-vs-webkit.py [--radarblock PATH] [--write-fixtures] [--only-css|--only-lists]

--write-fixtures records WebKit's verdicts in Tests/ContentRulesTests/Fixtures/ (small cases only), which
the unit tests replay without WebKit. Exit 0 when everything agrees, 1 otherwise, 2 when a tool is missing.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "ContentRulesTests", "Fixtures")

# WebKit's messages -> names (messages are unique), to name what WebKitGTK reports (GLib gives the message only).
MESSAGES = {
    "Failed to parse the JSON String.": "JSONInvalid",
    "Invalid input, the top level structure is not an array.": "JSONTopLevelStructureNotAnArray",
    "Invalid rule.": "JSONInvalidRule",
    "Empty extension.": "JSONContainsNoRules",
    "Invalid trigger object.": "JSONInvalidTrigger",
    "Invalid url-filter object.": "JSONInvalidURLFilterInTrigger",
    "Invalid trigger flags array.": "JSONInvalidTriggerFlagsArray",
    "Invalid string in the trigger flags array.": "JSONInvalidStringInTriggerFlagsArray",
    "Invalid list of if-domain, unless-domain, if-top-url, or unless-top-url conditions.": "JSONInvalidConditionList",
    "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters.": "JSONDomainNotLowerCaseASCII",
    (
        "A trigger cannot have more than one condition (if-domain, unless-domain, if-top-url, or unless-top-url)"
    ): "JSONMultipleConditions",
    "Too many rules in JSON array.": "JSONTooManyRules",
    (
        'The request-method string must be "get", "head", "options", "trace", '
        '"put", "delete", "post", "patch", or "connect".'
    ): "JSONInvalidRequestMethod",
    "Invalid action object.": "JSONInvalidAction",
    "Invalid action type.": "JSONInvalidActionType",
    "Invalid css-display-none action type. Requires a selector.": "JSONInvalidCSSDisplayNoneActionType",
    "A notify action must have a string notification": "JSONInvalidNotification",
    "Invalid or unsupported regular expression.": "JSONInvalidRegex",
    "A redirect action must have a redirect member": "JSONRedirectMissing",
    "A redirect extension path must start with a slash": "JSONRedirectExtensionPathDoesNotStartWithSlash",
    "A redirect url scheme must be a valid scheme": "JSONRedirectURLSchemeInvalid",
    "A redirect url can't have a scheme of javascript": "JSONRedirectToJavaScriptURL",
    "A redirect url must be valid": "JSONRedirectURLInvalid",
    (
        'A redirect must have a member named "extension-path", "regex-substitution", "transform" or "url"'
    ): "JSONRedirectInvalidType",
    "A redirect port must be either empty or a number between 0 and 65535, inclusive": "JSONRedirectInvalidPort",
    "A redirect query must either be empty or begin with '?'": "JSONRedirectInvalidQuery",
    "A redirect fragment must either be empty or begin with '#'": "JSONRedirectInvalidFragment",
    "A remove-parameters value must be an array of strings": "JSONRemoveParametersNotStringArray",
    "An add-or-replace-parameters value must be an array": "JSONAddOrReplaceParametersNotArray",
    (
        "Members of the add-or-replace-parameters array must be a dictionary"
    ): "JSONAddOrReplaceParametersKeyValueNotADictionary",
    (
        "Members of the add-or-replace-parameters array must contain a key that is a string"
    ): "JSONAddOrReplaceParametersKeyValueMissingKeyString",
    (
        "Members of the add-or-replace-parameters array must contain a value that is a string"
    ): "JSONAddOrReplaceParametersKeyValueMissingValueString",
    "A headers member must be an array": "JSONModifyHeadersNotArray",
    "A modify-headers operation must be a dictionary": "JSONModifyHeadersInfoNotADictionary",
    "A modify-headers operation must have an operation": "JSONModifyHeadersMissingOperation",
    (
        'A modify-headers operation must have an operation that is either "set", "append", or "remove"'
    ): "JSONModifyHeadersInvalidOperation",
    "A modify-headers operation must have a header": "JSONModifyHeadersMissingHeader",
    'A modify-headers operation of "set" or "append" must have a value': "JSONModifyHeadersMissingValue",
    "A priority must be a positive integer": "JSONModifyHeadersInvalidPriority",
}

# Cases too slow or too big for WebKit in a routine run (compiling a 1 MB literal url-filter took WebKit
# more than 8 minutes and 5 GB); they are checked on our side by the unit tests.
WEBKIT_SKIP = {"regex-one-mb-ok"}
# Cases too big to store as fixtures (the unit tests generate them).
FIXTURE_MAX_BYTES = 20000


def list_cases():
    cases = []

    def c(name, source, note=""):
        # `note`: why the case exists, printed when WebKit and radarblock disagree on it.
        cases.append({"name": name, "source": source, "note": note})

    def R(trigger=None, action=None, extra=None):
        r = {}
        if trigger is not None:
            r["trigger"] = trigger
        if action is not None:
            r["action"] = action
        if extra:
            r.update(extra)
        return r

    T = {"url-filter": "a"}
    B = {"type": "block"}

    def L(*rules):
        return json.dumps(list(rules), separators=(",", ":"))

    def t(**kw):
        d = {"url-filter": "a"}
        for k, v in kw.items():
            d[k.replace("_", "-")] = v
        return d

    def redirect(r):
        return {"type": "redirect", "redirect": r}

    def mh(**kw):
        d = {"type": "modify-headers"}
        for k, v in kw.items():
            d[k.replace("_", "-")] = v
        return d

    # list level
    c("json-syntax", "[{")
    c("json-empty-input-space", " ")
    c("json-trailing-comma", '[{"trigger":{"url-filter":"a"},"action":{"type":"block"}},]')
    c("json-bom", "\ufeff" + L(R(T, B)))
    c("json-raw-tab-in-string", '[{"trigger":{"url-filter":"a\tb"},"action":{"type":"block"}}]')
    c("json-raw-newline-in-string", '[{"trigger":{"url-filter":"a"},"action":{"type":"notify","notification":"x\ny"}}]')
    c("json-x-escape", '[{"trigger":{"url-filter":"\\x61"},"action":{"type":"block"}}]')
    c("json-v-escape", '[{"trigger":{"url-filter":"a"},"action":{"type":"notify","notification":"\\v"}}]')
    c("json-bad-escape", '[{"trigger":{"url-filter":"\\q"},"action":{"type":"block"}}]')
    c("json-leading-zero", '[{"trigger":{"url-filter":"a"},"action":{"type":"modify-headers","priority":01}}]')
    c("json-formfeed-whitespace", "\f" + L(R(T, B)))
    c("json-trailing-garbage", L(R(T, B)) + " x")
    c(
        "json-depth-1000-scalar",
        '[{"trigger":{"url-filter":"a","x":' + "[" * 997 + "1" + "]" * 997 + '},"action":{"type":"block"}}]',
    )
    c(
        "json-depth-1001-scalar",
        '[{"trigger":{"url-filter":"a","x":' + "[" * 998 + "1" + "]" * 998 + '},"action":{"type":"block"}}]',
    )
    c(
        "json-depth-1001-empty-array",
        '[{"trigger":{"url-filter":"a","x":' + "[" * 998 + "]" * 998 + '},"action":{"type":"block"}}]',
    )
    c(
        "json-depth-1002-empty-array",
        '[{"trigger":{"url-filter":"a","x":' + "[" * 999 + "]" * 999 + '},"action":{"type":"block"}}]',
    )
    c("json-duplicate-key-last-wins", '[{"trigger":{"url-filter":"a"},"action":{"type":"bogus","type":"block"}}]')
    c("top-object", "{}")
    c("top-number", "123")
    c("top-string", '"x"')
    c("empty-array", "[]")
    c("rule-not-object", "[5]")
    c("rule-null", "[null]")
    c("trigger-missing", L(R(None, B)))
    c("trigger-not-object", L(R([], B)))
    c("url-filter-missing", L(R({}, B)))
    c("url-filter-empty", L(R({"url-filter": ""}, B)))
    c("url-filter-number", L(R({"url-filter": 5}, B)))
    c("case-sensitive-non-bool-ignored", L(R(t(url_filter_is_case_sensitive="yes"), B)))
    c("resource-type-null", L(R(t(resource_type=None), B)))
    c("resource-type-string", L(R(t(resource_type="image"), B)))
    c("resource-type-empty-ok", L(R(t(resource_type=[]), B)))
    c("resource-type-unknown", L(R(t(resource_type=["imagex"]), B)))
    c("resource-type-number", L(R(t(resource_type=[5]), B)))
    c(
        "resource-type-all-ok",
        L(
            R(
                t(
                    resource_type=[
                        "document",
                        "top-document",
                        "child-document",
                        "image",
                        "style-sheet",
                        "script",
                        "font",
                        "raw",
                        "svg-document",
                        "media",
                        "popup",
                        "ping",
                        "fetch",
                        "websocket",
                        "other",
                        "csp-report",
                    ]
                ),
                B,
            )
        ),
    )
    c("load-type-bad", L(R(t(load_type=["first"]), B)))
    c("load-type-not-array", L(R(t(load_type="first-party"), B)))
    c("load-context-bad", L(R(t(load_context=["top"]), B)))
    c("load-context-ok", L(R(t(load_context=["top-frame", "child-frame"]), B)))
    c("request-method-ok-upper", L(R(t(request_method="PoSt"), B)))
    c("request-method-bad", L(R(t(request_method="fetch"), B)))
    c("request-method-array", L(R(t(request_method=["get"]), B)))
    c("request-method-null", L(R(t(request_method=None), B)))
    c("if-domain-ok", L(R(t(if_domain=["a.com", "*b.org"]), B)))
    c("if-domain-empty", L(R(t(if_domain=[]), B)))
    c("if-domain-not-array", L(R(t(if_domain="a.com"), B)))
    c("if-domain-empty-string", L(R(t(if_domain=[""]), B)))
    c("if-domain-number", L(R(t(if_domain=[1]), B)))
    c("if-domain-uppercase", L(R(t(if_domain=["A.com"]), B)))
    c("if-domain-non-ascii", L(R(t(if_domain=["\u00dc.com"]), B)))
    c("unless-domain-uppercase", L(R(t(unless_domain=["a.com", "B"]), B)))
    c("multiple-conditions-before-type", L(R(t(unless_domain=["a"], if_top_url=[]), B)))
    c("invalid-condition-list-first", L(R(t(if_domain=[], unless_domain=["a"]), B)))
    c("multiple-conditions-frame", L(R(t(if_top_url=["a"], unless_frame_url=["b"]), B)))
    c("if-top-url-empty-string", L(R(t(if_top_url=[""]), B)))
    c("if-top-url-uppercase-ok", L(R(t(if_top_url=["A"]), B)))
    c("if-frame-url-ok", L(R(t(if_frame_url=["https://a"]), B)))
    c("unless-frame-url-null", L(R(t(unless_frame_url=None), B)))
    c("unknown-trigger-key-ignored", L(R(t(unexpected_identifier_should_be_ignored=5), B)))
    c("unknown-rule-key-ignored", L(R(T, B, {"unused": 1})))
    c("identifier-string-ignored", L(R(T, B, {"_identifier": "x"})))
    c("action-missing", L(R(T, None)))
    c("action-not-object", L(R(T, "block")))
    c("action-type-missing", L(R(T, {})))
    c("action-type-empty", L(R(T, {"type": ""})))
    c("action-type-unknown", L(R(T, {"type": "blocks"})))
    c("action-type-number", L(R(T, {"type": 1})))
    c("trigger-error-before-action-error", L(R({"url-filter": ""}, {"type": "x"})))
    c(
        "all-simple-actions",
        L(
            R(T, B),
            R(T, {"type": "block-cookies"}),
            R(T, {"type": "ignore-previous-rules"}),
            R(T, {"type": "ignore-following-rules"}),
            R(T, {"type": "make-https"}),
        ),
    )
    c("css-missing-selector", L(R(T, {"type": "css-display-none"})))
    c("css-selector-number", L(R(T, {"type": "css-display-none", "selector": 5})))
    c("css-ok", L(R(T, {"type": "css-display-none", "selector": ".ad, #b > div[x='1']"})))
    c("css-only-invalid-skipped", L(R(T, {"type": "css-display-none", "selector": "a[" + "]"})))
    c("css-empty-selector-skipped", L(R(T, {"type": "css-display-none", "selector": ""})))
    c("css-invalid-then-block", L(R(T, {"type": "css-display-none", "selector": "!!"}), R(T, B)))
    c("css-skipped-still-checks-trigger", L(R({"url-filter": ""}, {"type": "css-display-none", "selector": "!!"})))
    c("notify-missing", L(R(T, {"type": "notify"})))
    c("notify-number", L(R(T, {"type": "notify", "notification": 1})))
    c("notify-empty-ok", L(R(T, {"type": "notify", "notification": ""})))
    c("redirect-missing", L(R(T, {"type": "redirect"})))
    c("redirect-not-object", L(R(T, {"type": "redirect", "redirect": "https://a/"})))
    c("redirect-empty", L(R(T, redirect({}))))
    c("redirect-extension-path-ok", L(R(T, redirect({"extension-path": "/a?b#c"}))))
    c("redirect-extension-path-no-slash", L(R(T, redirect({"extension-path": "a"}))))
    c("redirect-extension-path-empty", L(R(T, redirect({"extension-path": ""}))))
    c("redirect-extension-path-wins-over-url", L(R(T, redirect({"extension-path": "x", "url": "https://a/"}))))
    c("redirect-regex-substitution", L(R(T, redirect({"regex-substitution": "\\1"}))))
    c("redirect-url-ok", L(R(T, redirect({"url": "https://example.com/x"}))))
    c("redirect-url-ipv4-double-dot", L(R(T, redirect({"url": "https://127..1/"}))))
    c("redirect-url-javascript", L(R(T, redirect({"url": "JaVaScRiPt:dostuff"}))))
    c("redirect-url-relative", L(R(T, redirect({"url": "/path"}))))
    c("redirect-url-empty", L(R(T, redirect({"url": ""}))))
    c("redirect-url-number-type", L(R(T, redirect({"url": 5}))))
    for i, u in enumerate(
        [
            "http://",
            "http:",
            "http:example.com",
            "http:///x",
            "https://a:65535/",
            "https://a:65536/",
            "https://a:/",
            "https://:80/",
            "https://user@/",
            "https://user:pw@host/",
            "https://[::1]/",
            "https://[::1/",
            "https://[1:2:3:4:5:6:7:8]/",
            "https://[1:2:3:4:5:6:7:8:9]/",
            "https://[::ffff:1.2.3.4]/",
            "https://[::1.2.3]/",
            "https://0x7f.1/",
            "https://1.2.3.4.5/",
            "https://999.1.1.1/",
            "https://4294967296/",
            "https://4294967295/",
            "https://a.1/",
            "https://a.0x/",
            "https://a.09/",
            "https://a b/",
            "https://a%20b/",
            "https://a%41b/",
            "https://xn--a/",
            "https://xn--nxasmq6b/",
            "https://\u00fc.com/",
            "https://a<b/",
            "https://a^b/",
            "https://a|b/",
            "https://%zz/",
            "file:///etc/x",
            "file://host/x",
            "file://host:80/x",
            "file://C:/x",
            "foo:bar",
            "foo://",
            "foo://a b/",
            "foo://a^b/",
            "foo://user@/",
            "foo://:1/",
            "foo://h:99999/",
            "about:blank",
            "data:text/plain,x",
            "mailto:a@b",
            " https://a/ ",
            "ht\ttps://a/",
            "1http://a/",
            "h_t://a/",
            "ws://a/",
            "wss://a:1/",
            "ftp://a/",
            "http://a.b.c.1e/",
            "http://99999999999a/",
            "http://0x100000000/",
            "http://1.2.3.0x/",
            "http://a./",
            "http://1.2.3.4./",
            "http://\u2603.net/",
            "http://a\\b/",
            "javascript://x",
            "https://exa%mple.com/",
            "https://example.com:8o/",
            "https://xn--/",
            "https://xn--ls8h.la/",
            "https://a\u200d.com/",
            "https://ab--c.com/",
            "https://-a.com/",
            "https://%E2%98%83.net/",
            "https://%ff.com/",
            "https://\u00df.de/",
            "https://a..b/",
            "https://.a/",
            "https://\u05d0a.com/",
            "https://\u05d0.com/",
            "https://XN--NXASMQ6B/",
            "https://\uff21.com/",
            "https://a\u3002b/",
            "https://%41.com/",
            "https://%2e/",
            "https://\u00ad/",
            "https://x%00y/",
            "https://[::1]:8080/",
        ]
    ):
        c("redirect-url-%02d %s" % (i, u), L(R(T, redirect({"url": u}))))
    c("redirect-transform-empty-ok", L(R(T, redirect({"transform": {}}))))
    c("redirect-transform-fragment-bad", L(R(T, redirect({"transform": {"fragment": "x"}}))))
    c(
        "redirect-transform-fragment-ok",
        L(R(T, redirect({"transform": {"fragment": ""}})), R(T, redirect({"transform": {"fragment": "#x"}}))),
    )
    for i, p in enumerate(["", "0", "65535", "65536", "not a number", " 80 ", "+80", "-0", "8080a", "\u0660", "0080"]):
        c("redirect-transform-port-%02d %r" % (i, p), L(R(T, redirect({"transform": {"port": p}}))))
    for i, s in enumerate(
        [
            "https",
            "About",
            "!@#$%",
            "",
            "javascript",
            "JavaScript",
            "java\tscript",
            "1abc",
            "a+b-c.d",
            " http",
            "\thttp",
            "ht tp",
            "h\u00e9",
        ]
    ):
        c("redirect-transform-scheme-%02d %r" % (i, s), L(R(T, redirect({"transform": {"scheme": s}}))))
    c("redirect-transform-query-bad", L(R(T, redirect({"transform": {"query": "a=b"}}))))
    c("redirect-transform-query-ok", L(R(T, redirect({"transform": {"query": "?a=b"}}))))
    c(
        "redirect-transform-query-transform-wins",
        L(R(T, redirect({"transform": {"query": "bad", "query-transform": {}}}))),
    )
    c(
        "redirect-remove-parameters-not-array",
        L(R(T, redirect({"transform": {"query-transform": {"remove-parameters": "a"}}}))),
    )
    c(
        "redirect-remove-parameters-number",
        L(R(T, redirect({"transform": {"query-transform": {"remove-parameters": ["a", 1]}}}))),
    )
    c(
        "redirect-add-not-array",
        L(R(T, redirect({"transform": {"query-transform": {"add-or-replace-parameters": {}}}}))),
    )
    c(
        "redirect-add-not-dict",
        L(R(T, redirect({"transform": {"query-transform": {"add-or-replace-parameters": ["a"]}}}))),
    )
    c(
        "redirect-add-missing-key",
        L(R(T, redirect({"transform": {"query-transform": {"add-or-replace-parameters": [{"value": "v"}]}}}))),
    )
    c(
        "redirect-add-missing-value",
        L(R(T, redirect({"transform": {"query-transform": {"add-or-replace-parameters": [{"key": "k"}]}}}))),
    )
    c(
        "redirect-add-ok",
        L(
            R(
                T,
                redirect(
                    {
                        "transform": {
                            "query-transform": {
                                "add-or-replace-parameters": [{"key": "k", "value": "v", "replace-only": True}],
                                "remove-parameters": ["x"],
                            }
                        }
                    }
                ),
            )
        ),
    )
    c("redirect-transform-order-fragment-before-port", L(R(T, redirect({"transform": {"fragment": "x", "port": "x"}}))))
    c("redirect-transform-order-port-before-scheme", L(R(T, redirect({"transform": {"scheme": "!", "port": "x"}}))))
    c("redirect-transform-order-scheme-before-query", L(R(T, redirect({"transform": {"scheme": "!", "query": "x"}}))))
    c("modify-headers-missing-priority", L(R(T, mh())))
    c("modify-headers-priority-string", L(R(T, mh(priority="1"))))
    c("modify-headers-priority-ok", L(R(T, mh(priority=0))))
    c("modify-headers-priority-negative", L(R(T, mh(priority=-1))))
    c("modify-headers-priority-2.5", L(R(T, mh(priority=2.5))))
    c("modify-headers-priority-minus-0.5", L(R(T, mh(priority=-0.5))))
    c("modify-headers-priority-2^31", L(R(T, mh(priority=2147483648))))
    c("modify-headers-priority-2^31-1", L(R(T, mh(priority=2147483647))))
    c("modify-headers-priority-2^32+5", L(R(T, mh(priority=4294967301))))
    c("modify-headers-priority-1e300", L(R(T, mh(priority=1e300))))
    c("modify-headers-not-array", L(R(T, mh(priority=1, request_headers={}))))
    c("modify-headers-null-array", L(R(T, mh(priority=1, response_headers=None))))
    c("modify-headers-info-not-dict", L(R(T, mh(priority=1, request_headers=["x"]))))
    c("modify-headers-missing-operation", L(R(T, mh(priority=1, request_headers=[{"header": "h"}]))))
    c("modify-headers-missing-header", L(R(T, mh(priority=1, request_headers=[{"operation": "set"}]))))
    c(
        "modify-headers-invalid-operation",
        L(R(T, mh(priority=1, request_headers=[{"operation": "delete", "header": "h"}]))),
    )
    c("modify-headers-missing-value", L(R(T, mh(priority=1, request_headers=[{"operation": "append", "header": "h"}]))))
    c(
        "modify-headers-remove-ok",
        L(
            R(
                T,
                mh(
                    priority=1,
                    request_headers=[{"operation": "remove", "header": "h"}],
                    response_headers=[{"operation": "set", "header": "h", "value": ""}],
                ),
            )
        ),
    )
    c("modify-headers-headers-before-priority", L(R(T, mh(request_headers=[1]))))
    c(
        "modify-headers-missing-header-before-invalid-op",
        L(R(T, mh(priority=1, request_headers=[{"operation": "bogus"}]))),
    )
    c("regex-invalid", L(R({"url-filter": "a(b|c)"}, B)))
    c("regex-ok-matches-everything", L(R({"url-filter": ".*"}, B)))
    c("regex-in-if-top-url", L(R(t(if_top_url=["a|b"]), B)))
    c("regex-in-if-domain-paren", L(R(t(if_domain=["a(b"]), B)))
    c("regex-in-unless-frame-url", L(R(t(unless_frame_url=["\\b"]), B)))
    c("regex-after-parse-error", L(R({"url-filter": "a|b"}, B), R(T, {"type": "nope"})))
    c("regex-rule-index", L(R(T, B), R(T, B), R({"url-filter": "a{2}"}, B)))
    c("regex-index-after-skipped", L(R(T, {"type": "css-display-none", "selector": "::"}), R({"url-filter": "\\d"}, B)))
    c("regex-url-filter-before-condition", L(R({"url-filter": "a|b", "if-top-url": ["(?=x)"]}, B)))
    c("regex-one-mb-ok", L(R({"url-filter": "a" * 1000000}, B)))
    c("rules-150000", "[" + ",".join(['{"trigger":{"url-filter":"a"},"action":{"type":"block"}}'] * 150000) + "]")
    c("rules-150001", "[" + ",".join(['{"trigger":{"url-filter":"a"},"action":{"type":"block"}}'] * 150001) + "]")
    c(
        "rules-150001-invalid-first",
        "[5," + ",".join(['{"trigger":{"url-filter":"a"},"action":{"type":"block"}}'] * 150000) + "]",
    )

    return cases


def css_selectors():
    sels = r"""div
    .ad
    #banner
    *
    a.b.c
    div > p
    div + p
    div ~ p
    div p
    div>p+a~b c
    a, b
    a ,b , c
    a,
    ,a
    a,,b
    [href]
    [href="x"]
    [href='x']
    [href=x]
    [href="x" i]
    [href="x" I]
    [href="x" s]
    [href="x" j]
    [href~="x"]
    [href|="x"]
    [href^="x"]
    [href$="x"]
    [href*="x"]
    [href=="x"]
    [href!="x"]
    [ href = "x" ]
    [href=1]
    [href=x y]
    [*|href]
    [|href]
    [ns|href]
    [*]
    [href
    a[href
    []
    [1]
    a:hover
    a:HOVER
    a:not(.b)
    a:not(.b, .c)
    a:not()
    :not(::before)
    :not(:not(.a))
    :not(a b)
    :nth-child(2n+1)
    :nth-child(2n + 1)
    :nth-child(2n- 1)
    :nth-child(2n -1)
    :nth-child(2n-1)
    :nth-child(-n+3)
    :nth-child(+n+3)
    :nth-child(+ n+3)
    :nth-child(n)
    :nth-child(N)
    :nth-child(odd)
    :nth-child(EVEN)
    :nth-child(3)
    :nth-child(+3)
    :nth-child(-3)
    :nth-child(3.0)
    :nth-child(2n+1 of .a)
    :nth-child(2n+1 of)
    :nth-of-type(2n+1 of .a)
    :nth-of-type(2n)
    :nth-child()
    :nth-child(n-)
    :nth-child(n- 1)
    :nth-child(n+-1)
    :nth-child(2n+ 1)
    :nth-child(2n +1)
    :nth-child(2 n)
    :nth-last-child(1)
    :nth-last-of-type(odd)
    :first-child
    :last-child
    :only-child
    :empty
    :root
    :target
    :link
    :visited
    :focus-visible
    :focus-within
    :checked
    :disabled
    :enabled
    :indeterminate
    :placeholder-shown
    :read-only
    :read-write
    :required
    :optional
    :valid
    :invalid
    :in-range
    :out-of-range
    :user-valid
    :user-invalid
    :default
    :defined
    :autofill
    :-webkit-autofill
    :any-link
    :-webkit-any-link
    :fullscreen
    :-webkit-full-screen
    :modal
    :popover-open
    :picture-in-picture
    :playing
    :paused
    :muted
    :buffering
    :scope
    :host
    :host(.a)
    :host()
    :has(> .a)
    :has(.a, + .b)
    :has(:has(.a))
    :has()
    :is(.a, .b)
    :is()
    :is(::before)
    :is(!!, .a)
    :where(.a)
    :matches(.a)
    :-webkit-any(.a)
    :-webkit-any()
    :lang(en)
    :lang("en")
    :lang(en, fr)
    :lang(--x)
    :lang()
    :dir(ltr)
    :dir(ltr rtl)
    :state(foo)
    :hover()
    :focus(x)
    :unknown
    :-webkit-unknown
    :-internal-html-document
    :-apple-has-attachment
    :active-view-transition
    :window-inactive
    :horizontal
    ::before
    ::after
    :before
    :after
    :first-line
    :first-letter
    ::first-line
    ::marker
    ::backdrop
    ::selection
    ::placeholder
    ::-webkit-input-placeholder
    ::file-selector-button
    ::-webkit-file-upload-button
    ::-webkit-scrollbar
    ::-webkit-scrollbar:hover
    ::-webkit-scrollbar:horizontal
    ::-webkit-scrollbar-thumb:window-inactive
    ::-webkit-foo
    ::-webkit-foo:hover
    ::-webkit-foo:focus
    ::-webkit-foo:checked
    ::-moz-selection
    ::unknown
    ::before:hover
    ::before::after
    ::before .a
    ::before > a
    a::before
    a::before,b::after
    ::selection:window-inactive
    ::placeholder:hover
    ::placeholder.a
    ::cue
    ::cue(.a)
    ::cue()
    ::part(foo)
    ::part(foo bar)
    ::part(foo):hover
    ::part(foo)::before
    ::part(foo):first-child
    ::slotted(.a)
    ::slotted(.a)::before
    ::slotted(.a)::marker
    ::slotted(.a):hover
    ::highlight(x)
    ::highlight()
    ::grammar-error
    ::spelling-error
    ::target-text
    ::thumb
    ::view-transition
    ::-internal-loading-auto-fill-button
    ::details-content
    :: before
    : hover
    a:
    a::
    a.
    .1a
    .-a
    .--a
    .\31 a
    #1a
    #-a
    #--
    #a\:b
    .a\
    #
    ##a
    a#b#c
    .a.b
    div#id.cls[attr]:hover::before
    a|b
    *|a
    |a
    ns|a
    *|*
    a|*
    a||b
    &
    & .a
    .a &
    a b  
      a
    a /* comment */ b
    a/**/b
    a /* unterminated
    a	b
    a
    b
    "a"
    'a'
    a"b"
    123
    -a
    --a
    -1a
    \61
    a\62 c
    a\ b
    a{}
    a{
    a(b)
    a:not(b
    a:not(.b
    .a:is(.b
    [a="b
    [a="b
    ]
    @media
    a;b
    a!important
    a > > b
    a >
    > a
    + a
    a ~
    a + + b
    a ,
    a , ,
    div:nth-child(2n+1):not(.x) > span.y[z^="w"]::after
    html > body div.ad-container:not([data-x]):nth-of-type(3n)
    .ad:has(img[src*="tracker"])
    a:has(b:has(c))
    :is(a:has(b))
    :not(:has(a))
    a\
    url(x)
    a:url(x)
    :nth-child(url(x))
    u+a
    U+0-7F
    \0
    \D800 a
    .a\0
    #a\00
    :-webkit-drag
    :-webkit-autofill-strong-password
    :horizontal:decrement
    ::-webkit-resizer
    ::-webkit-slider-thumb
    ::-webkit-slider-thumb:hover
    ::-webkit-media-controls
    ::-apple-attachment-controls-container""".split("\n")  # noqa: W291 (one selector a line; trailing spaces are cases)

    return sels


def css_list(selector):
    return json.dumps([{"trigger": {"url-filter": "a"}, "action": {"type": "css-display-none", "selector": selector}}])


def find_radarblock(explicit):
    for p in ([explicit] if explicit else []) + [
        os.environ.get("RADARBLOCK"),
        os.path.join(ROOT, ".build", "release", "radarblock"),
        os.path.join(ROOT, ".build", "debug", "radarblock"),
    ]:
        if p and os.path.exists(p):
            return p
    sys.exit("check-validate-vs-webkit: radarblock binary not found (swift build, or --radarblock PATH)")


def ours(radarblock, sources, target=None):
    out = []
    with tempfile.TemporaryDirectory(prefix="rb-validate-") as d:
        path = os.path.join(d, "rules.json")
        for s in sources:
            with open(path, "wb") as f:
                f.write(s.encode("utf-8"))
            cmd = [radarblock, "validate", path, "--json"] + (["--target", target] if target else [])
            p = subprocess.run(cmd, capture_output=True, timeout=600)
            if p.returncode not in (0, 1):
                out.append({"crash": p.returncode, "stderr": p.stderr.decode("utf-8", "replace")[-500:]})
                continue
            out.append(json.loads(p.stdout))
    return out


def webkit(sources):
    harness = os.path.join(ROOT, "scripts", "webkit-check")
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for i, s in enumerate(sources):
            f.write(json.dumps({"id": i, "source": s}) + "\n")
        name = f.name
    try:
        p = subprocess.run([harness, "compile-batch", name], capture_output=True, timeout=7200)
    finally:
        os.unlink(name)
    if p.returncode != 0:
        sys.exit("webkit-check failed: " + p.stderr.decode("utf-8", "replace")[-2000:])
    results = [json.loads(line) for line in p.stdout.decode("utf-8").splitlines() if line.strip()]
    if len(results) != len(sources):
        sys.exit("webkit-check returned %d results for %d inputs" % (len(results), len(sources)))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--radarblock")
    ap.add_argument("--target", help="radarblock's engine profile for the installed WebKit (validate --target)")
    ap.add_argument("--write-fixtures", action="store_true")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--only-css", action="store_true")
    group.add_argument("--only-lists", action="store_true")
    args = ap.parse_args()
    radarblock = find_radarblock(args.radarblock)

    items = []  # (kind, name, source)
    notes = {}
    if not args.only_css:
        cases = [c for c in list_cases() if c["name"] not in WEBKIT_SKIP]
        items += [("list", c["name"], c["source"]) for c in cases]
        notes = {c["name"]: c["note"] for c in cases if c["note"]}
    if not args.only_lists:
        items += [("css", s, css_list(s)) for s in css_selectors()]
    sources = [s for _, _, s in items]
    wk = webkit(sources)
    us = ours(radarblock, sources, args.target)

    agree = 0
    list_fixture, css_fixture = [], []
    for (kind, name, source), w, o in zip(items, wk, us, strict=True):
        if "crash" in o:
            print("CRASH  %s: radarblock exited %s: %s" % (name, o["crash"], o["stderr"]))
            continue
        w_error = None if w["ok"] else MESSAGES.get(w["error"], "?" + w["error"])
        same = (w["ok"] == o["valid"]) and (w["ok"] or w["error"] == o["message"])
        if same:
            agree += 1
        else:
            print(
                "DIFFER %s %s: WebKit %s, radarblock %s%s"
                % (
                    kind,
                    json.dumps(name),
                    w_error or "valid",
                    o.get("error", "valid"),
                    " (%s)" % notes[name] if kind == "list" and name in notes else "",
                )
            )
        if kind == "list" and len(source.encode("utf-8")) <= FIXTURE_MAX_BYTES:
            list_fixture.append({"name": name, "source": source, "webkit": {"valid": w["ok"], "error": w_error}})
        if kind == "css":
            css_fixture.append({"selector": name, "webkitAccepts": w["ok"]})
    print("%d of %d agree" % (agree, len(items)))
    if args.write_fixtures:
        version = wk[0].get("webkitVersion", "?") if wk else "?"
        os.makedirs(FIXTURES, exist_ok=True)
        if list_fixture:
            with open(os.path.join(FIXTURES, "validate-cases-webkit.json"), "w", encoding="utf-8") as f:
                json.dump({"webkitVersion": version, "cases": list_fixture}, f, indent=1, ensure_ascii=True)
                f.write("\n")
        if css_fixture:
            with open(os.path.join(FIXTURES, "css-selectors-webkit.json"), "w", encoding="utf-8") as f:
                json.dump({"webkitVersion": version, "selectors": css_fixture}, f, indent=1, ensure_ascii=True)
                f.write("\n")
    return 0 if agree == len(items) else 1


if __name__ == "__main__":
    sys.exit(main())
