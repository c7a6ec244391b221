// A network filter's text -> NetworkFilter: `@@`, the pattern (`/regex/`, `||`, `|`, the body) and the options
// after the last `$`. Every option adblock-rust reads is recognised; the ones that do more than block or allow are
// kept by name (NetworkOptions.unconvertible) so that the converter reports them, and an unknown option makes the
// line malformed, as it makes adblock-rust drop the filter.

public enum NetworkFilterParser {
    static func parse(_ text: String, line: Int) -> Result<NetworkFilter, FilterLineIssue> {
        var rest = Substring(text)
        let isException = rest.hasPrefix("@@")
        if isException { rest = rest.dropFirst(2) }
        var optionText: Substring?
        if let (patternPart, options) = splitOptions(rest) {
            rest = patternPart
            optionText = options
        }
        var options = NetworkOptions()
        if let optionText {
            for raw in optionText.split(separator: ",", omittingEmptySubsequences: false) {
                if let why = read(option: raw, isException: isException, into: &options) {
                    return .failure(FilterLineIssue(line: line, text: text, kind: .malformed, reason: why))
                }
            }
        }
        let pattern = readPattern(rest)
        return .success(
            NetworkFilter(line: line, text: text, isException: isException, pattern: pattern, options: options))
    }

    /// The pattern and the options, split at the last `$` unless the pattern is a `/regex/` that holds it.
    public static func splitOptions(_ s: Substring) -> (Substring, Substring)? {
        if isRegex(s) { return nil }
        guard let dollar = s.utf8.lastIndex(of: UInt8(ascii: "$")) else { return nil }
        return (s[..<dollar], s[s.utf8.index(after: dollar)...])
    }

    /// `/.../`: two slashes at least.
    static func isRegex(_ s: Substring) -> Bool {
        s.utf8.count >= 2 && s.utf8.first == UInt8(ascii: "/") && s.utf8.last == UInt8(ascii: "/")
    }

    static func readPattern(_ s: Substring) -> FilterPattern {
        if isRegex(s) {
            return .regex(String(s.dropFirst().dropLast()))
        }
        var body = s
        var start = FilterPattern.StartAnchor.none
        if body.hasPrefix("||") {
            start = .host
            body = body.dropFirst(2)
        } else if body.hasPrefix("|") {
            start = .url
            body = body.dropFirst()
        }
        var endAnchored = false
        if body.hasSuffix("|") {
            endAnchored = true
            body = body.dropLast()
        }
        return .plain(start: start, body: String(body), endAnchored: endAnchored)
    }

    /// Reads one option into `options`; returns why the option makes the filter malformed.
    static func read(option raw: Substring, isException: Bool, into options: inout NetworkOptions) -> String? {
        let negated = raw.hasPrefix("~")
        let body = negated ? raw.dropFirst() : raw
        let name: Substring
        let value: Substring?
        if let eq = body.firstIndex(of: "=") {
            name = body[..<eq]
            value = body[body.index(after: eq)...]
        } else {
            (name, value) = (body, nil)
        }
        let key = name.lowercased()
        if let type = typeAliases[key], value == nil {
            if type == .document && isException && !negated {
                options.pageExceptions.insert(.document)
            } else if negated {
                options.excludedTypes.insert(type)
            } else {
                options.types.insert(type)
            }
            return nil
        }
        if let page = pageExceptionAliases[key], value == nil, !negated {
            options.pageExceptions.insert(page)
            return nil
        }
        switch key {
        case "third-party", "3p": options.thirdParty = !negated
        case "first-party", "1p": options.thirdParty = negated
        case "important" where !negated: options.important = true
        case "match-case" where !negated: options.matchCase = true
        case "badfilter" where !negated: options.badfilter = true
        case "all" where !negated: options.all = true
        case "domain", "from":
            guard let value, !value.isEmpty, !negated else { return "$\(name) needs a list of domains" }
            for part in value.split(separator: "|", omittingEmptySubsequences: false) {
                switch DomainEntry.parse(part) {
                case .success(let e): options.domains.append(e)
                case .failure(let why): return "$\(name): \(why.message)"
                }
            }
        default:
            guard unconvertibleOptions.contains(key) else {
                return raw.isEmpty ? "an empty option" : "unknown option \"\(raw)\""
            }
            options.unconvertible.append(String(name))
        }
        return nil
    }

    /// Request types by every name ABP and uBO give them.
    static let typeAliases: [String: FilterRequestType] = [
        "script": .script, "image": .image, "stylesheet": .stylesheet, "css": .stylesheet, "font": .font,
        "media": .media, "subdocument": .subdocument, "frame": .subdocument, "xmlhttprequest": .xmlhttprequest,
        "xhr": .xmlhttprequest, "websocket": .websocket, "ping": .ping, "beacon": .ping, "other": .other,
        "object": .object, "object-subrequest": .objectSubrequest, "document": .document, "doc": .document,
        "popup": .popup, "webrtc": .webrtc,
    ]

    static let pageExceptionAliases: [String: PageException] = [
        "elemhide": .elemhide, "ehide": .elemhide, "generichide": .generichide, "ghide": .generichide,
        "genericblock": .genericblock, "specifichide": .specifichide, "shide": .specifichide,
    ]

    /// Options adblock-rust and uBO read that redirect, rewrite, filter or restrict a load in ways a WebKit block
    /// rule cannot: recognised so that the filter is reported under the option's name.
    static let unconvertibleOptions: Set<String> = [
        "redirect", "redirect-rule", "rewrite", "removeparam", "queryprune", "csp", "replace", "header", "permissions",
        "to", "denyallow", "method", "cname", "inline-script", "inline-font", "mp4", "empty", "urlskip",
        "uritransform", "urltransform", "popunder", "ipaddress", "strict1p", "strict3p", "strict-first-party",
        "strict-third-party", "generic", "specific", "reason", "_", "__", "___", "tag", "requestheader",
    ]
}
