// Privacy configuration v4 and the user's unprotected-sites file.

import Domains
import FileIO
import StrictJSON

extension PrivacyConfig {
    public static func decode(bytes: [UInt8], source: String, strict: Bool = false) throws -> (
        PrivacyConfig, [DecodeIssue]
    ) {
        var log = IssueLog(source: source, strict: strict)
        let json = try parseJSON(bytes, source: source, log: &log)
        let (config, issues) = try decode(json: json, source: source, strict: strict)
        return (config, log.issues + issues)
    }

    public static func load(path: String, strict: Bool = false) throws -> (PrivacyConfig, [DecodeIssue]) {
        try decode(bytes: FileIO.read(path), source: path, strict: strict)
    }

    public static func decode(json: JSONValue, source: String, strict: Bool = false) throws -> (
        PrivacyConfig, [DecodeIssue]
    ) {
        var log = IssueLog(source: source, strict: strict)
        let root = JSONPath.root
        guard case .object(let top) = json else {
            throw log.fatal(root, "expected a privacy configuration object, found \(json.aTypeName)")
        }
        // Without "features" the file is not a config (a TDS given as --config would otherwise build a release that
        // blocks nothing, its contentBlocking state read as absent).
        guard top.member(TDSConventions.configTopLevelKey) != nil else {
            throw log.fatal(
                root,
                top.member("trackers") != nil
                    ? "this is a tracker data set (it has \"trackers\"), not a privacy configuration: give it as --tds"
                    : "missing \"features\": not a privacy configuration")
        }
        var config = PrivacyConfig(raw: json)
        config.version = try log.optional(top, "version", at: root, expected: "a number", Typed.double)
        config.unprotectedTemporary = try decodeDomainList(top, "unprotectedTemporary", at: root, log: &log)

        var features = JSONObject()
        if let v = top.member("features") {
            if case .object(let f) = v {
                features = f
            } else {
                try log.report(root / "features", "expected an object, found \(v.aTypeName); features ignored")
            }
        }
        try decodeFeatures(features, into: &config, log: &log)
        return (config, log.issues)
    }

    /// The features radarblock converts, each decoded by its own function; a feature that is not an object is
    /// reported and ignored.
    private static func decodeFeatures(_ features: JSONObject, into config: inout PrivacyConfig, log: inout IssueLog)
        throws
    {
        let featuresPath = JSONPath.root / "features"
        func feature(_ name: String) throws -> (JSONObject, JSONPath)? {
            guard let v = features.member(name) else { return nil }
            let path = featuresPath / name
            guard case .object(let o) = v else {
                try log.report(path, "expected an object, found \(v.aTypeName); feature ignored")
                return nil
            }
            return (o, path)
        }
        config.contentBlockingEnabled = false
        if let (cb, path) = try feature("contentBlocking") {
            let state = try log.optional(cb, "state", at: path, expected: "a string", Typed.string)
            config.contentBlockingState = state
            config.contentBlockingEnabled = state == "enabled"
            config.contentBlockingExceptions = try decodeDomainList(cb, "exceptions", at: path, log: &log)
        }
        if let (ta, path) = try feature("trackerAllowlist") {
            config.trackerAllowlist = try decodeAllowlist(ta, at: path, log: &log)
            if let stated = config.trackerAllowlist.hash, let computed = config.computedFeatureHash("trackerAllowlist"),
                stated != computed
            {
                // The hash versions the allowlist in rule-list identifiers; a stale one hides changes.
                try log.report(
                    path / "hash",
                    "does not match the feature's content (md5 of JSON.stringify is \(computed)); the allowlist was "
                        + "edited without updating its hash"
                )
            }
        }
        if let (rb, path) = try feature("requestBlocklist") {
            config.requestBlocklist = try decodeRequestBlocklist(rb, at: path, log: &log)
        }
        if let (ctl, path) = try feature("clickToLoad") {
            config.clickToLoad = try decodeClickToLoad(ctl, at: path, log: &log)
        }
        if let (aca, path) = try feature("adClickAttribution") {
            config.adClickAttribution = try decodeAdClickAttribution(aca, at: path, log: &log)
        }
        if let (ac, path) = try feature("autoconsent") {
            config.cookiePopups = try decodeCookiePopups(ac, at: path, log: &log)
        }
    }

    /// `[{"domain": "..."}]` → normalised domains in order. Whitespace-only domains are dropped (the apps do the
    /// same).
    static func decodeDomainList(_ object: JSONObject, _ key: String, at parent: JSONPath, log: inout IssueLog) throws
        -> [String]
    {
        guard let v = object.member(key) else { return [] }
        let path = parent / key
        guard case .array(let entries) = v else {
            try log.report(path, "expected an array, found \(v.aTypeName); list ignored")
            return []
        }
        var out: [String] = []
        out.reserveCapacity(entries.count)
        for (i, e) in entries.enumerated() {
            let epath = path / i
            guard case .object(let o) = e else {
                try log.report(epath, "expected an object with \"domain\", found \(e.aTypeName); entry dropped")
                continue
            }
            guard let dv = o.member("domain") else {
                try log.report(epath, "missing \"domain\"; entry dropped")
                continue
            }
            guard case .string(let raw) = dv else {
                try log.report(epath / "domain", "expected a string, found \(dv.aTypeName); entry dropped")
                continue
            }
            if let d = try log.domain(raw, at: epath / "domain", consequence: "entry dropped") { out.append(d) }
        }
        return out
    }

    static func decodeAllowlist(_ ta: JSONObject, at path: JSONPath, log: inout IssueLog) throws -> TrackerAllowlist {
        var allowlist = TrackerAllowlist()
        allowlist.state = try log.optional(ta, "state", at: path, expected: "a string", Typed.string)
        allowlist.enabled = allowlist.state == "enabled"
        allowlist.hash = try log.optional(ta, "hash", at: path, expected: "a string", Typed.string)
        allowlist.exceptions = try decodeDomainList(ta, "exceptions", at: path, log: &log)
        guard let settingsValue = ta.member("settings") else { return allowlist }
        guard case .object(let settings) = settingsValue else {
            try log.report(path / "settings", "expected an object, found \(settingsValue.aTypeName); allowlist ignored")
            return allowlist
        }
        let trackersPath = path / "settings" / "allowlistedTrackers"
        guard let trackersValue = settings.member("allowlistedTrackers") else { return allowlist }
        guard case .object(let trackers) = trackersValue else {
            try log.report(trackersPath, "expected an object, found \(trackersValue.aTypeName); allowlist ignored")
            return allowlist
        }
        allowlist.entries = try decodeAllowlistedTrackers(trackers, at: trackersPath, log: &log)
        return allowlist
    }

    static func decodeAllowlistedTrackers(_ trackers: JSONObject, at trackersPath: JSONPath, log: inout IssueLog) throws
        -> [AllowlistEntry]
    {
        var byTracker: [(String, [AllowlistEntry])] = []
        for key in trackers.keys {
            let tpath = trackersPath / key
            guard let trackerDomain = try log.domain(key, at: tpath, consequence: "entries dropped") else { continue }
            let tv = trackers[key]!
            guard case .object(let t) = tv, let rulesValue = t.member("rules") else {
                try log.report(tpath, "expected an object with \"rules\", found \(tv.aTypeName); entries dropped")
                continue
            }
            guard case .array(let rules) = rulesValue else {
                try log.report(tpath / "rules", "expected an array, found \(rulesValue.aTypeName); entries dropped")
                continue
            }
            var entries: [AllowlistEntry] = []
            for (i, rv) in rules.enumerated() {
                if let e = try decodeAllowlistRule(rv, trackerDomain: trackerDomain, at: tpath / "rules" / i, log: &log)
                {
                    entries.append(e)
                }
            }
            byTracker.append((trackerDomain, entries))
        }
        // Stable sort: two keys that normalise to the same domain keep their file order.
        return byTracker.enumerated()
            .sorted { byteOrder($0.element.0, $1.element.0) || ($0.element.0 == $1.element.0 && $0.offset < $1.offset) }
            .flatMap(\.element.1)
    }

    static func decodeAllowlistRule(_ value: JSONValue, trackerDomain: String, at path: JSONPath, log: inout IssueLog)
        throws -> AllowlistEntry?
    {
        guard case .object(let r) = value else {
            try log.report(path, "expected an object, found \(value.aTypeName); entry dropped")
            return nil
        }
        guard let ruleValue = r.member("rule"), case .string(let rule) = ruleValue, !rule.isEmpty else {
            try log.report(
                path / "rule",
                r.member("rule") == nil
                    ? "missing \"rule\"; entry dropped" : "expected a non-empty string; entry dropped")
            return nil
        }
        guard rule.utf8.count <= DecodingLimits.ruleBytes else {
            try log.report(
                path / "rule",
                "rule is \(rule.utf8.count) bytes long, over the limit of \(DecodingLimits.ruleBytes); entry dropped")
            return nil
        }
        guard let domainsValue = r.member("domains") else {
            try log.report(path, "missing \"domains\"; entry dropped")
            return nil
        }
        guard let raw = Typed.stringArray(domainsValue) else {
            try log.report(path / "domains", "expected an array of strings; entry dropped")
            return nil
        }
        if raw.contains("<all>") {
            return AllowlistEntry(trackerDomain: trackerDomain, rule: rule, sites: .all)
        }
        var domains: [String] = []
        for (i, d) in raw.enumerated() {
            if let n = try log.domain(d, at: path / "domains" / i, consequence: "domain dropped") { domains.append(n) }
        }
        if domains.isEmpty {
            try log.report(
                path / "domains",
                raw.isEmpty ? "empty domain list; entry dropped" : "no usable domain left; entry dropped")
            return nil
        }
        return AllowlistEntry(trackerDomain: trackerDomain, rule: rule, sites: .domains(domains))
    }
}

extension UnprotectedSites {
    /// One host per line; blank lines and lines starting with `#` are skipped. Hosts are exact (no wildcard),
    /// normalised; duplicates are kept once (first position). Lines that are not host names are reported with
    /// their line number and skipped (strict: thrown).
    public static func parse(bytes: [UInt8], source: String, strict: Bool = false) throws -> (
        UnprotectedSites, [DecodeIssue]
    ) {
        var log = IssueLog(source: source, strict: strict)
        var hosts: [String] = []
        var seen = Set<String>()
        var skipped = 0, firstSkipped = 0
        // Split on LF bytes (a Swift Character would fuse "\r\n" into one grapheme), then strip a CR.
        for (index, rawLine) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            guard let line = String(validating: rawLine, as: UTF8.self) else {
                throw TrackerDataError.invalid(
                    DecodeIssue(source: source, line: lineNumber, message: "not valid UTF-8 text"))
            }
            let trimmed = line.trimmingWhitespace() // also removes a trailing "\r"
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if hosts.isEmpty, skipped == 0, let kind = documentKind(trimmed) {
                throw TrackerDataError.invalid(
                    DecodeIssue(
                        source: source, line: lineNumber,
                        message: "this is \(kind), not a list of sites (one host per line)"))
            }
            switch DomainCheck.normalize(trimmed) {
            case .success(let host):
                if seen.insert(host).inserted { hosts.append(host) }
            case .failure(let problem):
                skipped += 1
                if firstSkipped == 0 { firstSkipped = lineNumber }
                try log.report(line: lineNumber, "\(problem.message); line skipped")
            }
        }
        if hosts.isEmpty, skipped > 0 {
            throw TrackerDataError.invalid(
                DecodeIssue(
                    source: source, line: firstSkipped,
                    message: "not a list of sites: none of its \(skipped) line(s) is a host name"))
        }
        return (UnprotectedSites(hosts: hosts), log.issues)
    }

    /// What a file whose first content line is `line` is when it is clearly no host list: a JSON document (a TDS or
    /// config given by mistake) or an HTML page (a saved error page).
    static func documentKind(_ line: String) -> String? {
        if line.hasPrefix("{") || line.hasPrefix("[") { return "a JSON document" }
        if line.hasPrefix("<") { return "an HTML or XML document" }
        return nil
    }

    public static func load(path: String, strict: Bool = false) throws -> (UnprotectedSites, [DecodeIssue]) {
        try parse(bytes: FileIO.read(path), source: path, strict: strict)
    }
}

extension TrackerAllowlist {
    /// Decodes a bare `allowlistedTrackers` object (`{"<tracker>": {"rules": [{rule, domains}]}}`), the form the
    /// privacy reference tests ship. The result is marked enabled and has no hash.
    public static func decode(allowlistedTrackers bytes: [UInt8], source: String, strict: Bool = false) throws
        -> (TrackerAllowlist, [DecodeIssue])
    {
        var log = IssueLog(source: source, strict: strict)
        let json = try parseJSON(bytes, source: source, log: &log)
        guard case .object(let trackers) = json else {
            throw log.fatal(.root, "expected an object of allowlisted trackers, found \(json.aTypeName)")
        }
        let entries = try PrivacyConfig.decodeAllowlistedTrackers(trackers, at: .root, log: &log)
        return (TrackerAllowlist(enabled: true, state: "enabled", hash: nil, entries: entries), log.issues)
    }
}
