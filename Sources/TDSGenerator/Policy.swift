// The tracker policy: which Tracker Radar domains become TDS trackers, with which `default`, and which of
// their resources become rules. It is data (a documented JSON file, data/policy.json; docs/tds-policy.md
// explains every field and why its default was chosen), so that the decision is a pure, reviewable function
// of the radar numbers. Per-domain human decisions do not belong here: they go into the overrides file.

import FileIO
import StrictJSON

public struct TDSPolicy: Sendable, Hashable {
    /// Minimum number of crawled sites (`sites`) on which the domain was seen as a third party.
    public var minSites: Int
    /// Fingerprinting score (0...3) that counts as tracking evidence.
    public var minFingerprinting: Int
    /// Share of crawled sites on which the domain set a third-party cookie that counts as tracking evidence.
    public var minCookies: Double
    /// Beacon requests (radar request type "Ping": navigator.sendBeacon and <a ping>) on at least this many sites
    /// count as tracking evidence: beacons exist to report page activity. nil disables this evidence.
    public var minBeaconSites: Int?
    /// A domain without cookie, fingerprinting or beacon evidence is still listed (with `default: ignore`, so it is
    /// known but not blocked) when its prevalence reaches this share of crawled sites. nil disables the tier.
    public var observedMinPrevalence: Double?
    /// A domain whose owner (entity file) the radar saw tracking on less than this share of the sites where the
    /// owner's domains appear at all (`prevalence.tracking / prevalence.total`) is not a tracker: the owner is a
    /// service (error monitoring, IP lookup, ...), whatever one request pattern of it did. Domains without an
    /// entity file, or whose entity has `prevalence.total` 0, are not judged by this rule. nil disables it.
    public var minOwnerTrackingShare: Double?
    /// `default: block` needs at least this many resource patterns (`resources[]` entries); trackers whose
    /// traffic is concentrated in fewer patterns get `default: ignore` and rules for their tracking resources.
    public var blockMinResources: Int
    /// Categories that mean "infrastructure sites need" (CDN, payment, ...): such domains are listed only with
    /// at least `breakageProneMinFingerprinting`, and never with `default: block`.
    public var breakageProneCategories: [String]
    public var breakageProneMinFingerprinting: Int
    /// Categories that mean tracking. They are carried through and reported by --explain; they do not decide
    /// anything by themselves (the sample shows they do not separate trackers from non-trackers, see the doc).
    public var trackingCategories: [String]
    /// IP-literal hosts (e.g. 1.1.1.1) are never trackers: they are resolvers and infrastructure endpoints.
    public var excludeIPAddresses: Bool
    /// Rules: a resource becomes a rule of a `default: ignore` tracker when it was seen on at least
    /// `ruleMinSites` sites and set a third-party cookie (resource `cookies` > 0) or fingerprinted at
    /// `ruleMinFingerprinting` or more.
    public var ruleMinSites: Int
    public var ruleMinFingerprinting: Int
    /// Radar category name -> TDS category name (the TDS says "Content Delivery" where the radar says "CDN").
    public var categoryNames: [String: String]

    public init(
        minSites: Int, minFingerprinting: Int, minCookies: Double, minBeaconSites: Int?, observedMinPrevalence: Double?,
        minOwnerTrackingShare: Double? = nil, blockMinResources: Int, breakageProneCategories: [String],
        breakageProneMinFingerprinting: Int,
        trackingCategories: [String], excludeIPAddresses: Bool, ruleMinSites: Int,
        ruleMinFingerprinting: Int, categoryNames: [String: String]
    ) {
        self.minSites = minSites
        self.minFingerprinting = minFingerprinting
        self.minCookies = minCookies
        self.minBeaconSites = minBeaconSites
        self.observedMinPrevalence = observedMinPrevalence
        self.minOwnerTrackingShare = minOwnerTrackingShare
        self.blockMinResources = blockMinResources
        self.breakageProneCategories = breakageProneCategories
        self.breakageProneMinFingerprinting = breakageProneMinFingerprinting
        self.trackingCategories = trackingCategories
        self.excludeIPAddresses = excludeIPAddresses
        self.ruleMinSites = ruleMinSites
        self.ruleMinFingerprinting = ruleMinFingerprinting
        self.categoryNames = categoryNames
    }

    /// The defaults, tuned on the 119-file sample (docs/tds-policy.md). data/policy.json holds the same values;
    /// a test keeps the two equal.
    public static let `default` = TDSPolicy(
        minSites: 2,
        minFingerprinting: 1,
        minCookies: 0.0007,
        minBeaconSites: 10,
        observedMinPrevalence: 0.005,
        minOwnerTrackingShare: 0.05,
        blockMinResources: 5,
        breakageProneCategories: ["CDN", "Content Delivery"],
        breakageProneMinFingerprinting: 3,
        trackingCategories: [
            "Action Pixels", "Ad Fraud", "Ad Motivated Tracking", "Advertising", "Analytics", "Audience Measurement",
            "Session Replay", "Third-Party Analytics Marketing",
        ],
        excludeIPAddresses: true,
        ruleMinSites: 10,
        ruleMinFingerprinting: 1,
        categoryNames: ["CDN": "Content Delivery"]
    )
}

// MARK: - Decoding (strict: a policy with a typo must not silently fall back to a default)

public struct PolicyError: Error, Sendable, CustomStringConvertible, Equatable {
    public let source: String
    public let path: JSONPath
    public let message: String
    public var description: String { "\(source): \(path): \(message)" }
}

extension TDSPolicy {
    static let keys: Set<String> = [
        "$comment", "minSites", "minFingerprinting", "minCookies", "minBeaconSites", "observedMinPrevalence",
        "minOwnerTrackingShare",
        "blockMinResources",
        "breakageProneCategories", "breakageProneMinFingerprinting", "trackingCategories", "excludeIPAddresses",
        "ruleMinSites", "ruleMinFingerprinting", "categoryNames",
    ]

    public static func load(path: String) throws -> TDSPolicy {
        let bytes = try FileIO.read(path)
        return try decode(bytes: bytes, source: path)
    }

    /// Every key is optional (missing keys take the defaults); unknown keys and wrong types are errors.
    public static func decode(bytes: [UInt8], source: String) throws -> TDSPolicy {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch let e as JSONParseError {
            throw PolicyError(
                source: source, path: .root, message: "invalid JSON at line \(e.line), column \(e.column): \(e.message)"
            )
        }
        let r = StrictReader(source: source)
        let o = try r.object(json, at: .root)
        for key in o.keys where !keys.contains(key) {
            throw PolicyError(
                source: source, path: .root / key,
                message:
                    "unknown policy key (known: \(keys.filter { $0 != "$comment" }.sorted().joined(separator: ", ")))")
        }
        var p = TDSPolicy.default
        if let v = o["minSites"] { p.minSites = try r.int(v, at: .root / "minSites", range: 0...Int.max) }
        if let v = o["minFingerprinting"] {
            p.minFingerprinting = try r.int(v, at: .root / "minFingerprinting", range: 0...4)
        }
        if let v = o["minCookies"] { p.minCookies = try r.fraction(v, at: .root / "minCookies") }
        if let v = o["minBeaconSites"] {
            p.minBeaconSites = v.isNull ? nil : try r.int(v, at: .root / "minBeaconSites", range: 1...Int.max)
        }
        if let v = o["observedMinPrevalence"] {
            p.observedMinPrevalence = v.isNull ? nil : try r.fraction(v, at: .root / "observedMinPrevalence")
        }
        if let v = o["minOwnerTrackingShare"] {
            p.minOwnerTrackingShare = v.isNull ? nil : try r.fraction(v, at: .root / "minOwnerTrackingShare")
        }
        if let v = o["blockMinResources"] {
            p.blockMinResources = try r.int(v, at: .root / "blockMinResources", range: 0...Int.max)
        }
        if let v = o["breakageProneCategories"] {
            p.breakageProneCategories = try r.strings(v, at: .root / "breakageProneCategories")
        }
        if let v = o["breakageProneMinFingerprinting"] {
            p.breakageProneMinFingerprinting = try r.int(v, at: .root / "breakageProneMinFingerprinting", range: 0...4)
        }
        if let v = o["trackingCategories"] { p.trackingCategories = try r.strings(v, at: .root / "trackingCategories") }
        if let v = o["excludeIPAddresses"] { p.excludeIPAddresses = try r.bool(v, at: .root / "excludeIPAddresses") }
        if let v = o["ruleMinSites"] { p.ruleMinSites = try r.int(v, at: .root / "ruleMinSites", range: 0...Int.max) }
        if let v = o["ruleMinFingerprinting"] {
            p.ruleMinFingerprinting = try r.int(v, at: .root / "ruleMinFingerprinting", range: 0...4)
        }
        if let v = o["categoryNames"] {
            let m = try r.object(v, at: .root / "categoryNames")
            var names: [String: String] = [:]
            for (k, nv) in m { names[k] = try r.string(nv, at: .root / "categoryNames" / k) }
            p.categoryNames = names
        }
        return p
    }

    /// The policy as JSON (sorted keys when written), e.g. to record which policy built a TDS.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["minSites"] = .number(Double(minSites))
        o["minFingerprinting"] = .number(Double(minFingerprinting))
        o["minCookies"] = .number(minCookies)
        o["minBeaconSites"] = minBeaconSites.map { .number(Double($0)) } ?? .null
        o["observedMinPrevalence"] = observedMinPrevalence.map { .number($0) } ?? .null
        o["minOwnerTrackingShare"] = minOwnerTrackingShare.map { .number($0) } ?? .null
        o["blockMinResources"] = .number(Double(blockMinResources))
        o["breakageProneCategories"] = .array(breakageProneCategories.map { .string($0) })
        o["breakageProneMinFingerprinting"] = .number(Double(breakageProneMinFingerprinting))
        o["trackingCategories"] = .array(trackingCategories.map { .string($0) })
        o["excludeIPAddresses"] = .bool(excludeIPAddresses)
        o["ruleMinSites"] = .number(Double(ruleMinSites))
        o["ruleMinFingerprinting"] = .number(Double(ruleMinFingerprinting))
        var names = JSONObject()
        for k in categoryNames.keys.sorted() { names[k] = .string(categoryNames[k]!) }
        o["categoryNames"] = .object(names)
        return .object(o)
    }
}

/// Strict typed reads for the generator's own input files (policy, mapping, overrides): a wrong type is an
/// error naming the file and the JSON path, never a silent default.
struct StrictReader {
    let source: String

    func fail(_ path: JSONPath, _ message: String) -> PolicyError {
        PolicyError(source: source, path: path, message: message)
    }

    func object(_ v: JSONValue, at path: JSONPath) throws -> JSONObject {
        guard case .object(let o) = v else { throw fail(path, "expected an object, found \(v.typeName)") }
        return o
    }
    func array(_ v: JSONValue, at path: JSONPath) throws -> [JSONValue] {
        guard case .array(let a) = v else { throw fail(path, "expected an array, found \(v.typeName)") }
        return a
    }
    func string(_ v: JSONValue, at path: JSONPath) throws -> String {
        guard case .string(let s) = v else { throw fail(path, "expected a string, found \(v.typeName)") }
        return s
    }
    func bool(_ v: JSONValue, at path: JSONPath) throws -> Bool {
        guard case .bool(let b) = v else { throw fail(path, "expected a boolean, found \(v.typeName)") }
        return b
    }
    func strings(_ v: JSONValue, at path: JSONPath) throws -> [String] {
        try array(v, at: path).enumerated().map { try string($0.element, at: path / $0.offset) }
    }
    func int(_ v: JSONValue, at path: JSONPath, range: ClosedRange<Int>) throws -> Int {
        guard case .number(let d) = v, d == d.rounded(), abs(d) < 9e15 else {
            throw fail(path, "expected an integer, found \(v.typeName == "number" ? "a fraction" : v.typeName)")
        }
        guard range.contains(Int(d)) else {
            throw fail(
                path,
                "\(Int(d)) is out of range "
                    + "\(range.lowerBound)...\(range.upperBound == Int.max ? "" : String(range.upperBound))"
            )
        }
        return Int(d)
    }
    func fraction(_ v: JSONValue, at path: JSONPath) throws -> Double {
        guard case .number(let d) = v else { throw fail(path, "expected a number, found \(v.typeName)") }
        guard d >= 0, d <= 1 else { throw fail(path, "\(d) is not a share between 0 and 1") }
        return d
    }
}
