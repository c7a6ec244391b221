// redirect actions as WebKit's RedirectAction::parse checks them (ContentExtensionActions.cpp), in WebKit's
// precedence: extension-path, regex-substitution, transform, url; the first member present decides.

import StrictJSON

enum RedirectValidation {
    /// The first problem WebKit would report for this action object (type "redirect"), or nil.
    static func check(action: JSONObject) -> ActionCheckFailure? {
        guard case .object(let redirect)? = action["redirect"] else {
            return ActionCheckFailure(
                .jsonRedirectMissing,
                action["redirect"].map { "redirect is \(RuleListParser.describe($0))" }
                    ?? "the action has no redirect member")
        }
        if case .string(let path)? = redirect["extension-path"] {
            return path.hasPrefix("/")
                ? nil
                : ActionCheckFailure(
                    .jsonRedirectExtensionPathDoesNotStartWithSlash,
                    "extension-path \(RuleListParser.abbreviated(path))")
        }
        if case .string? = redirect["regex-substitution"] { return nil }
        if case .object(let transform)? = redirect["transform"] { return checkTransform(transform) }
        if case .string(let url)? = redirect["url"] {
            guard let parsed = WebKitURLValidity.parse(url) else {
                return ActionCheckFailure(
                    .jsonRedirectURLInvalid, "url \(RuleListParser.abbreviated(url)) is not a valid URL")
            }
            if parsed.scheme == "javascript" {
                return ActionCheckFailure(.jsonRedirectToJavaScriptURL, "url \(RuleListParser.abbreviated(url))")
            }
            return nil
        }
        return ActionCheckFailure(.jsonRedirectInvalidType)
    }

    /// URLTransformAction::parse: fragment, (host, password, path unchecked), port, scheme, (username), query.
    static func checkTransform(_ t: JSONObject) -> ActionCheckFailure? {
        if case .string(let fragment)? = t["fragment"], !fragment.isEmpty, !fragment.hasPrefix("#") {
            return ActionCheckFailure(.jsonRedirectInvalidFragment, "fragment \(RuleListParser.abbreviated(fragment))")
        }
        if case .string(let port)? = t["port"], !port.isEmpty, parsePort(port) == nil {
            return ActionCheckFailure(.jsonRedirectInvalidPort, "port \(RuleListParser.abbreviated(port))")
        }
        if case .string(let rawScheme)? = t["scheme"] {
            guard let scheme = WebKitURLValidity.canonicalizeScheme(rawScheme) else {
                return ActionCheckFailure(
                    .jsonRedirectURLSchemeInvalid, "scheme \(RuleListParser.abbreviated(rawScheme))")
            }
            if scheme == "javascript" {
                return ActionCheckFailure(
                    .jsonRedirectToJavaScriptURL, "scheme \(RuleListParser.abbreviated(rawScheme))")
            }
        }
        if case .object(let queryTransform)? = t["query-transform"] {
            return checkQueryTransform(queryTransform)
        }
        if case .string(let query)? = t["query"], !query.isEmpty, !query.hasPrefix("?") {
            return ActionCheckFailure(.jsonRedirectInvalidQuery, "query \(RuleListParser.abbreviated(query))")
        }
        return nil
    }

    static func checkQueryTransform(_ q: JSONObject) -> ActionCheckFailure? {
        if let value = q["remove-parameters"] {
            guard case .array(let names) = value else {
                return ActionCheckFailure(
                    .jsonRemoveParametersNotStringArray, "remove-parameters is \(RuleListParser.describe(value))")
            }
            for (i, name) in names.enumerated() {
                guard case .string = name else {
                    return ActionCheckFailure(
                        .jsonRemoveParametersNotStringArray,
                        "remove-parameters[\(i)] is \(RuleListParser.describe(name))")
                }
            }
        }
        if let value = q["add-or-replace-parameters"] {
            guard case .array(let entries) = value else {
                return ActionCheckFailure(
                    .jsonAddOrReplaceParametersNotArray,
                    "add-or-replace-parameters is \(RuleListParser.describe(value))")
            }
            for (i, entry) in entries.enumerated() {
                let at = "add-or-replace-parameters[\(i)]"
                guard case .object(let kv) = entry else {
                    return ActionCheckFailure(
                        .jsonAddOrReplaceParametersKeyValueNotADictionary, "\(at) is \(RuleListParser.describe(entry))")
                }
                guard case .string? = kv["key"] else {
                    return ActionCheckFailure(.jsonAddOrReplaceParametersKeyValueMissingKeyString, at)
                }
                guard case .string? = kv["value"] else {
                    return ActionCheckFailure(.jsonAddOrReplaceParametersKeyValueMissingValueString, at)
                }
            }
        }
        return nil
    }

    /// WTF's parseInteger<uint16_t> with its default whitespace policy: optional leading/trailing
    /// space/TAB/LF/VT/FF/CR, an optional '+', decimal digits, no overflow past 65535.
    static func parsePort(_ s: String) -> UInt16? {
        let u = Array(s.utf16)
        func isSpace(_ c: UInt16) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0B || c == 0x0C || c == 0x0D }
        var i = 0
        while i < u.count, isSpace(u[i]) { i += 1 }
        if i < u.count, u[i] == 0x2B { i += 1 }
        guard i < u.count, u[i] >= 0x30, u[i] <= 0x39 else { return nil }
        var value = 0
        while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
            value = value * 10 + Int(u[i] - 0x30)
            if value > 65535 { return nil }
            i += 1
        }
        while i < u.count, isSpace(u[i]) { i += 1 }
        return i == u.count ? UInt16(value) : nil
    }
}
