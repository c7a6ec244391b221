// `radarblock-bench tds-policy`: the decisions of TrackerClassifier (the policy `radarblock tds` applies) for many
// candidate policies at once, so that scripts/tds-policy-cv.py can tune and cross-validate policies on the Swift
// classifier itself and keep only the sweep and the statistics. One radar load, then one line per candidate.
//
// A candidate is a JSONL line {"policy": {...}, "experiment": {...}}: `policy` is a policy file's content (missing
// keys take the defaults, exactly as `--policy FILE`), `experiment` (optional) switches on extensions that
// docs/tds-policy.md measured and did not adopt. Each extension acts on one named outcome of the classifier
// (its `decidedBy`), or re-runs the classifier with a derived policy, so every decision is still the classifier's.

import Foundation
import StrictJSON
import TDSGenerator
import TrackerData

/// Candidate extensions (nil/false = off), in the order they act.
struct PolicyExperiment: Hashable {
    /// A share of the domain's sites with cookies (`cookies / prevalence`, cookies > 0) at least this large is evidence
    /// too.
    var minCookieShare: Double?
    /// Evidence counts only when one resource seen on at least this many sites set a cookie or fingerprinted.
    var evidenceMinResourceSites: Int?
    /// A tracker the page itself mostly loads (`topInitiators` "first party" share >= this) gets `ignore`.
    var firstPartyIgnore: Double?
    /// `block` needs a cookie share of at least this (or fingerprinting >= 2); below it the tracker gets `ignore`.
    var blockMinCookieShare: Double?
    /// `blockMinResources` counts distinct `rule` regexes instead of `resources[]` entries.
    var countDistinctRules = false

    static let keys: Set<String> = [
        "minCookieShare", "evidenceMinResourceSites", "firstPartyIgnore", "blockMinCookieShare", "countDistinctRules",
    ]
}

/// Where the classifier stopped, which is what decides whether an extension applies.
enum ClassifierStage {
    /// Before the evidence step (IP literal, breakage-prone without fingerprinting, minSites, owner share).
    case beforeEvidence
    /// No evidence (`noEvidence`, `observedOnly`).
    case noEvidence
    /// Evidence, then a breakage-prone category: `ignore`.
    case breakageProne
    /// Evidence, then the resource count (`manyResources`, `fewResources`).
    case resourceCount

    init(_ c: Classification) {
        switch c.decidedBy {
        case "noEvidence", "observedOnly": self = .noEvidence
        case "manyResources", "fewResources": self = .resourceCount
        case "breakageProneCategory" where c.steps.contains { $0.rule == "evidence" }: self = .breakageProne
        default: self = .beforeEvidence
        }
    }
}

struct Outcome: Hashable {
    var action: DefaultAction?
    var stage: ClassifierStage
}

/// The classifier's outcomes for every domain under one policy, computed once per distinct policy.
struct OutcomeTable {
    let domains: [RadarDomain]
    /// The same domains with one resource per distinct `rule` (countDistinctRules).
    let distinctRuleDomains: [RadarDomain]
    let entities: [String: RadarEntity]
    private var memo: [Key: [Outcome]] = [:]
    private struct Key: Hashable { var policy: TDSPolicy; var distinctRules: Bool }

    init(_ radar: RadarData) {
        domains = radar.domains
        distinctRuleDomains = radar.domains.map(OutcomeTable.oneResourcePerRule)
        entities = TrackerClassifier.entitiesByName(radar.entities)
    }

    static func oneResourcePerRule(_ d: RadarDomain) -> RadarDomain {
        var seen = Set<String>()
        var c = d
        c.resources = d.resources.filter { seen.insert($0.rule).inserted }
        return c
    }

    mutating func outcomes(_ policy: TDSPolicy, distinctRules: Bool) -> [Outcome] {
        let key = Key(policy: policy, distinctRules: distinctRules)
        if let known = memo[key] { return known }
        let computed = (distinctRules ? distinctRuleDomains : domains).map { d -> Outcome in
            let c = TrackerClassifier.classify(d, entities: entities, policy: policy)
            return Outcome(action: c.defaultAction, stage: ClassifierStage(c))
        }
        memo[key] = computed
        return computed
    }
}

extension TDSPolicy {
    /// The policy under which any cookie (> 0) is evidence.
    var anyCookieIsEvidence: TDSPolicy { var p = self; p.minCookies = 0; return p }
    /// The policy under which nothing is evidence, so the classifier takes its no-evidence branch.
    var noEvidence: TDSPolicy {
        var p = self
        p.minFingerprinting = Int.max
        p.minCookies = .infinity
        p.minBeaconSites = nil
        return p
    }
}

extension RadarDomain {
    var cookieShare: Double { cookies / max(prevalence, 1e-9) }
    /// nil without `topInitiators`; 0 when they are present without "first party".
    var firstPartyShare: Double? {
        topInitiators.map { list in list.first { $0.domain == "first party" }?.prevalence ?? 0 }
    }
    func hasResourceEvidence(minSites m: Int) -> Bool {
        resources.contains { $0.sites >= m && ($0.cookies > 0 || $0.fingerprinting >= 1) }
    }
}

/// The outcomes one candidate reads: its policy's, and those of the derived policies its experiment re-runs.
struct CandidateOutcomes {
    var base: [Outcome]
    var anyCookieIsEvidence: [Outcome]?
    var noEvidence: [Outcome]?

    init(_ policy: TDSPolicy, _ x: PolicyExperiment, _ table: inout OutcomeTable) {
        base = table.outcomes(policy, distinctRules: x.countDistinctRules)
        if x.minCookieShare != nil {
            anyCookieIsEvidence = table.outcomes(policy.anyCookieIsEvidence, distinctRules: x.countDistinctRules)
        }
        if x.evidenceMinResourceSites != nil {
            noEvidence = table.outcomes(policy.noEvidence, distinctRules: x.countDistinctRules)
        }
    }
}

/// Domain `i`'s decision under a candidate.
func decide(_ d: RadarDomain, _ i: Int, _ x: PolicyExperiment, _ outcomes: CandidateOutcomes) -> DefaultAction? {
    var o = outcomes.base[i]
    if let share = x.minCookieShare, let rerun = outcomes.anyCookieIsEvidence, o.stage == .noEvidence, d.cookies > 0,
        d.cookieShare >= share
    {
        o = rerun[i]
    }
    if let m = x.evidenceMinResourceSites, let rerun = outcomes.noEvidence,
        o.stage == .breakageProne || o.stage == .resourceCount,
        !d.hasResourceEvidence(minSites: m)
    {
        o = rerun[i]
    }
    guard o.stage == .resourceCount else { return o.action }
    if let share = x.firstPartyIgnore, let first = d.firstPartyShare, first >= share { return .ignore }
    if let share = x.blockMinCookieShare, d.cookieShare < share, d.fingerprinting < 2 { return .ignore }
    return o.action
}

struct CandidateError: Error, CustomStringConvertible {
    let description: String
}

/// One JSONL line: the policy (decoded as a policy file) and the experiment.
func candidate(_ line: ArraySlice<UInt8>, source: String) throws -> (TDSPolicy, PolicyExperiment) {
    let json: JSONValue
    do { json = try JSONParser.parse(Array(line)) } catch {
        throw CandidateError(description: "\(source): invalid JSON: \(error)")
    }
    guard case .object(let o) = json else {
        throw CandidateError(description: "\(source): expected an object, found \(json.typeName)")
    }
    for key in o.keys where key != "policy" && key != "experiment" {
        throw CandidateError(description: "\(source): unknown key \"\(key)\" (known: experiment, policy)")
    }
    guard case .object(let p)? = o["policy"] else {
        throw CandidateError(description: "\(source): \"policy\" must be an object")
    }
    let policy = try TDSPolicy.decode(bytes: Array(JSONWriter.string(.object(p)).utf8), source: source + ": policy")
    return (policy, try experiment(o["experiment"], source: source + ": experiment"))
}

func experiment(_ value: JSONValue?, source: String) throws -> PolicyExperiment {
    var x = PolicyExperiment()
    guard let value, !value.isNull else { return x }
    guard case .object(let o) = value else {
        throw CandidateError(description: "\(source): expected an object, found \(value.typeName)")
    }
    for key in o.keys where !PolicyExperiment.keys.contains(key) {
        throw CandidateError(
            description:
                "\(source): unknown key \"\(key)\" (known: \(PolicyExperiment.keys.sorted().joined(separator: ", ")))")
    }
    func number(_ key: String) throws -> Double? {
        guard let v = o[key], !v.isNull else { return nil }
        guard case .number(let n) = v, n.isFinite, n >= 0 else {
            throw CandidateError(description: "\(source): \(key): expected a number >= 0 or null")
        }
        return n
    }
    x.minCookieShare = try number("minCookieShare")
    x.firstPartyIgnore = try number("firstPartyIgnore")
    x.blockMinCookieShare = try number("blockMinCookieShare")
    if let m = try number("evidenceMinResourceSites") {
        guard m == m.rounded(), m <= 1e9 else {
            throw CandidateError(description: "\(source): evidenceMinResourceSites: expected an integer")
        }
        x.evidenceMinResourceSites = Int(m)
    }
    if let v = o["countDistinctRules"], !v.isNull {
        guard case .bool(let b) = v else {
            throw CandidateError(description: "\(source): countDistinctRules: expected a boolean or null")
        }
        x.countDistinctRules = b
    }
    return x
}

let tdsPolicyUsage = """
    usage: radarblock-bench tds-policy RADAR_DIR CANDIDATES.jsonl   (CANDIDATES "-": standard input)
      Loads the Tracker Radar tree once and classifies every domain under each candidate, as `radarblock tds` does.
      A candidate line: {"policy": {POLICY FILE KEYS}, "experiment": {minCookieShare, evidenceMinResourceSites,
      firstPartyIgnore, blockMinCookieShare, countDistinctRules}} (experiment optional, every key optional).
      Prints {"domains": [...]} (radar order), then one line per candidate: one character per domain,
      B (default block), I (default ignore), - (not a tracker).
    """

func runTDSPolicy(radarDirectory: String, candidatesPath: String) {
    let radar: RadarData
    do { radar = try RadarLoader.load(directory: radarDirectory) } catch { fail("\(error)") }
    guard !radar.domains.isEmpty else { fail("\(radarDirectory): no usable domain files") }
    for issue in radar.issues { FileHandle.standardError.write(Data("radarblock-bench: \(issue)\n".utf8)) }
    let bytes =
        candidatesPath == "-" ? [UInt8](FileHandle.standardInput.readDataToEndOfFile()) : readFile(candidatesPath)
    var table = OutcomeTable(radar)
    var out = Array(
        (JSONWriter.string(.object(JSONObject([("domains", .array(radar.domains.map { .string($0.domain) }))]))) + "\n")
            .utf8)
    var lineNumber = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        lineNumber += 1
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
        let policy: TDSPolicy, x: PolicyExperiment
        do { (policy, x) = try candidate(line, source: "\(candidatesPath): line \(lineNumber)") } catch {
            fail("\(error)")
        }
        let outcomes = CandidateOutcomes(policy, x, &table)
        for (i, d) in table.domains.enumerated() {
            switch decide(d, i, x, outcomes) {
            case .block?: out.append(UInt8(ascii: "B"))
            case .ignore?: out.append(UInt8(ascii: "I"))
            case nil: out.append(UInt8(ascii: "-"))
            }
        }
        out.append(0x0A)
    }
    FileHandle.standardOutput.write(Data(out))
}
