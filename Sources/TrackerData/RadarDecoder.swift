// Decoding single Tracker Radar files. Missing fields take empty/zero defaults (absent keys are normal in the
// data, e.g. `topInitiators`); present fields of the wrong type are reported and take the default. A file
// without a usable `domain` (or entity `name`) cannot be used at all and throws.

import FileIO
import StrictJSON

extension RadarDomain {
    /// Decodes one `domains/<REGION>/<domain>.json` file. `path` names the file in issues; `region` defaults to the
    /// name of the file's directory when it looks like a region code (e.g. "US").
    public static func decode(bytes: [UInt8], path: String, region: String? = nil, strict: Bool = false) throws
        -> (RadarDomain, [DecodeIssue])
    {
        var log = IssueLog(source: path, strict: strict)
        let json = try parseJSON(bytes, source: path, log: &log)
        let root = JSONPath.root
        guard case .object(let o) = json else {
            throw log.fatal(root, "expected a Tracker Radar domain object, found \(json.aTypeName)")
        }
        var d = RadarDomain(domain: try domainName(o, path: path, log: &log))
        if let r = region ?? RadarPaths.regionOfFile(path) { d.regions = [r] }
        if let ov = o.member("owner") { d.owner = try owner(ov, at: root / "owner", log: &log) }
        try d.decodeFigures(o, at: root, log: &log)
        if let pv = o.member("performance") {
            if case .object(let p) = pv {
                let path = root / "performance"
                d.performance = RadarPerformance(
                    time: try log.optional(p, "time", at: path, expected: "an integer", Typed.int),
                    size: try log.optional(p, "size", at: path, expected: "an integer", Typed.int),
                    cpu: try log.optional(p, "cpu", at: path, expected: "an integer", Typed.int),
                    cache: try log.optional(p, "cache", at: path, expected: "an integer", Typed.int))
            } else {
                try log.report(root / "performance", "expected an object, found \(pv.aTypeName); field ignored")
            }
        }
        if let iv = o.member("topInitiators") {
            d.topInitiators = try topInitiators(iv, at: root / "topInitiators", log: &log)
        }
        if let rv = o.member("resources") {
            if case .array(let list) = rv {
                d.resources.reserveCapacity(list.count)
                for (i, e) in list.enumerated() {
                    if let r = try RadarFields.resource(e, at: root / "resources" / i, log: &log) {
                        d.resources.append(r)
                    }
                }
            } else {
                try log.report(root / "resources", "expected an array, found \(rv.aTypeName); field ignored")
            }
        }
        d.breaking = o.member("breaking")
        d.surrogates = o.member("surrogates")
        return (d, log.issues)
    }

    /// The file's `domain`, normalised; a name that disagrees with the file name is reported.
    private static func domainName(_ o: JSONObject, path: String, log: inout IssueLog) throws -> String {
        let root = JSONPath.root
        guard let dv = o.member("domain"), case .string(let rawDomain) = dv else {
            throw log.fatal(root / "domain", o.member("domain") == nil ? "missing \"domain\"" : "expected a string")
        }
        let domain: String
        switch DomainCheck.normalize(rawDomain) {
        case .success(let d): domain = d
        case .failure(let problem): throw log.fatal(root / "domain", problem.message)
        }
        if let fileDomain = RadarPaths.baseName(path),
            let normalizedFileDomain = try? DomainCheck.normalize(fileDomain).get(),
            normalizedFileDomain != domain
        {
            try log.report(
                root / "domain", "domain \(quoted(rawDomain)) does not match the file name \(quoted(fileDomain))")
        }
        return domain
    }

    /// `owner`: nil when empty, without a name, or not an object (the last two reported).
    private static func owner(_ ov: JSONValue, at path: JSONPath, log: inout IssueLog) throws -> RadarOwner? {
        guard case .object(let owner) = ov else {
            try log.report(path, "expected an object, found \(ov.aTypeName); field ignored")
            return nil
        }
        if owner.isEmpty { return nil }
        guard let name = try log.optional(owner, "name", at: path, expected: "a string", Typed.string) else {
            if owner.member("name") == nil { try log.report(path, "owner without \"name\"; owner ignored") }
            return nil
        }
        return RadarOwner(
            name: name,
            displayName: try log.optional(owner, "displayName", at: path, expected: "a string", Typed.string),
            privacyPolicy: try log.optional(owner, "privacyPolicy", at: path, expected: "a string", Typed.string),
            url: try log.optional(owner, "url", at: path, expected: "a string", Typed.string))
    }

    /// The plain fields: lists of strings and numbers, each defaulting to empty or zero.
    private mutating func decodeFigures(_ o: JSONObject, at root: JSONPath, log: inout IssueLog) throws {
        source = try log.stringList(o, "source", at: root) ?? []
        prevalence = try log.optional(o, "prevalence", at: root, expected: "a number", Typed.double) ?? 0
        sites = try log.optional(o, "sites", at: root, expected: "an integer", Typed.int) ?? 0
        subdomains = try log.stringList(o, "subdomains", at: root) ?? []
        cnames = try RadarFields.cnames(o, at: root, log: &log)
        fingerprinting = try log.optional(o, "fingerprinting", at: root, expected: "an integer", Typed.int) ?? 0
        categories = try log.stringList(o, "categories", at: root) ?? []
        cookies = try log.optional(o, "cookies", at: root, expected: "a number", Typed.double) ?? 0
        nameservers = try log.stringList(o, "nameservers", at: root) ?? []
        types = try RadarFields.map(o, "types", at: root, log: &log, expected: "an integer", Typed.int)
    }

    /// `topInitiators`: malformed entries are reported and dropped; nil when the field is not an array.
    private static func topInitiators(_ iv: JSONValue, at root: JSONPath, log: inout IssueLog) throws
        -> [RadarInitiator]?
    {
        guard case .array(let list) = iv else {
            try log.report(root, "expected an array, found \(iv.aTypeName); field ignored")
            return nil
        }
        var initiators: [RadarInitiator] = []
        for (i, e) in list.enumerated() {
            let path = root / i
            guard case .object(let io) = e, case .string(let name)? = io.member("domain"),
                case .number(let prevalence)? = io.member("prevalence")
            else {
                try log.report(path, "expected {\"domain\": string, \"prevalence\": number}; entry dropped")
                continue
            }
            initiators.append(RadarInitiator(domain: name, prevalence: prevalence))
        }
        return initiators
    }

    public static func load(path: String, region: String? = nil, strict: Bool = false) throws -> (
        RadarDomain, [DecodeIssue]
    ) {
        try decode(bytes: FileIO.read(path), path: path, region: region, strict: strict)
    }
}

extension RadarEntity {
    /// Decodes one `entities/<Name>.json` file.
    public static func decode(bytes: [UInt8], path: String, strict: Bool = false) throws -> (RadarEntity, [DecodeIssue])
    {
        var log = IssueLog(source: path, strict: strict)
        let json = try parseJSON(bytes, source: path, log: &log)
        let root = JSONPath.root
        guard case .object(let o) = json else {
            throw log.fatal(root, "expected a Tracker Radar entity object, found \(json.aTypeName)")
        }
        guard let nv = o.member("name"), case .string(let name) = nv, !name.isEmpty else {
            throw log.fatal(root / "name", o.member("name") == nil ? "missing \"name\"" : "expected a non-empty string")
        }
        if let fileName = RadarPaths.baseName(path), fileName != name {
            try log.report(root / "name", "name \(quoted(name)) does not match the file name \(quoted(fileName))")
        }
        var e = RadarEntity(name: name)
        e.displayName = try log.optional(o, "displayName", at: root, expected: "a string", Typed.string)
        for (i, raw) in (try log.stringList(o, "properties", at: root) ?? []).enumerated() {
            if let d = try log.domain(raw, at: root / "properties" / i, consequence: "property dropped") {
                e.properties.append(d)
            }
        }
        if let pv = o.member("prevalence") {
            if case .object(let p) = pv {
                let path = root / "prevalence"
                e.prevalence = RadarEntityPrevalence(
                    tracking: try log.optional(p, "tracking", at: path, expected: "a number", Typed.double) ?? 0,
                    nonTracking: try log.optional(p, "nonTracking", at: path, expected: "a number", Typed.double) ?? 0,
                    total: try log.optional(p, "total", at: path, expected: "a number", Typed.double) ?? 0)
            } else {
                try log.report(root / "prevalence", "expected an object, found \(pv.aTypeName); field ignored")
            }
        }
        return (e, log.issues)
    }

    public static func load(path: String, strict: Bool = false) throws -> (RadarEntity, [DecodeIssue]) {
        try decode(bytes: FileIO.read(path), path: path, strict: strict)
    }
}

enum RadarFields {
    static func cnames(_ o: JSONObject, at parent: JSONPath, log: inout IssueLog) throws -> [RadarCNAME] {
        guard let v = o.member("cnames") else { return [] }
        let path = parent / "cnames"
        guard case .array(let list) = v else {
            try log.report(path, "expected an array, found \(v.aTypeName); field ignored")
            return []
        }
        var out: [RadarCNAME] = []
        for (i, e) in list.enumerated() {
            guard case .object(let c) = e, case .string(let original)? = c.member("original"),
                case .string(let resolved)? = c.member("resolved")
            else {
                try log.report(path / i, "expected {\"original\": string, \"resolved\": string}; entry dropped")
                continue
            }
            guard let a = try log.domain(original, at: path / i / "original", consequence: "entry dropped"),
                let b = try log.domain(resolved, at: path / i / "resolved", consequence: "entry dropped")
            else { continue }
            out.append(RadarCNAME(original: a, resolved: b))
        }
        return out
    }

    /// An object member of `convert`ible values: a wrong type drops the member (reported), a wrong value its entry.
    static func map<T>(
        _ o: JSONObject, _ key: String, at parent: JSONPath, log: inout IssueLog, expected: String,
        _ convert: (JSONValue) -> T?
    ) throws -> [String: T] {
        guard let v = o.member(key) else { return [:] }
        guard case .object(let m) = v else {
            try log.report(parent / key, "expected an object, found \(v.aTypeName); field ignored")
            return [:]
        }
        var out: [String: T] = [:]
        for k in m.keys {
            if let value = convert(m[k]!) {
                out[k] = value
            } else {
                try log.report(parent / key / k, "expected \(expected), found \(m[k]!.aTypeName); entry dropped")
            }
        }
        return out
    }

    static func resource(_ value: JSONValue, at path: JSONPath, log: inout IssueLog) throws -> RadarResource? {
        guard case .object(let o) = value else {
            try log.report(path, "expected a resource object, found \(value.aTypeName); resource dropped")
            return nil
        }
        guard case .string(let rule)? = o.member("rule"), !rule.isEmpty else {
            try log.report(path / "rule", "missing or not a non-empty string; resource dropped")
            return nil
        }
        var r = RadarResource(rule: rule)
        r.type = try log.optional(o, "type", at: path, expected: "a string", Typed.string)
        r.cookies = try log.optional(o, "cookies", at: path, expected: "a number", Typed.double) ?? 0
        r.fingerprinting = try log.optional(o, "fingerprinting", at: path, expected: "an integer", Typed.int) ?? 0
        r.subdomains = try log.stringList(o, "subdomains", at: path) ?? []
        r.apis = try map(o, "apis", at: path, log: &log, expected: "an integer", Typed.int)
        r.sites = try log.optional(o, "sites", at: path, expected: "an integer", Typed.int) ?? 0
        r.prevalence = try log.optional(o, "prevalence", at: path, expected: "a number", Typed.double) ?? 0
        r.cnames = try cnames(o, at: path, log: &log)
        r.responseHashes = try log.stringList(o, "responseHashes", at: path) ?? []
        r.firstPartyCookiesSent = try map(
            o, "firstPartyCookiesSent", at: path, log: &log, expected: "a number", Typed.double)
        r.exampleSites = try log.stringList(o, "exampleSites", at: path) ?? []
        if let fv = o.member("firstPartyCookies") {
            let fpath = path / "firstPartyCookies"
            if case .object(let cookies) = fv {
                for name in cookies.keys {
                    guard case .object(let c) = cookies[name]! else {
                        try log.report(
                            fpath / name, "expected an object, found \(cookies[name]!.aTypeName); entry dropped")
                        continue
                    }
                    let cpath = fpath / name
                    r.firstPartyCookies[name] = RadarFirstPartyCookie(
                        ttl: try log.optional(c, "ttl", at: cpath, expected: "a number", Typed.double),
                        length: try log.optional(c, "length", at: cpath, expected: "a number", Typed.double),
                        prevalence: try log.optional(c, "prevalence", at: cpath, expected: "a number", Typed.double),
                        uniqueness: try log.optional(c, "uniqueness", at: cpath, expected: "a number", Typed.double))
                }
            } else {
                try log.report(fpath, "expected an object, found \(fv.aTypeName); field ignored")
            }
        }
        return r
    }
}

enum RadarPaths {
    /// The last path component without ".json", or nil for other names.
    static func baseName(_ path: String) -> String? {
        guard let last = path.split(separator: "/").last, last.hasSuffix(".json"), last.count > 5 else { return nil }
        return String(last.dropLast(5))
    }

    /// The file's directory name when it looks like a region code ("US", "GB", ...).
    static func regionOfFile(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count >= 2 else { return nil }
        let dir = parts[parts.count - 2]
        return isRegionName(dir) ? String(dir) : nil
    }

    static func isRegionName<S: StringProtocol>(_ s: S) -> Bool {
        (2...3).contains(s.utf8.count) && s.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
