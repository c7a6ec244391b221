// What WebKit's content-extension backend reports for a load (ContentExtensionsBackend::
// actionsForResourceLoad / actionsFromContentRuleList, ContentExtension's caches), for one or
// more compiled rule lists:
//
//   no lists, invalid URL or data: URL            -> nothing at all (not even the stylesheet)
//   flags = type | load type | load context | method | all condition bits
//   per list:
//     S = url automaton(url, flags)                 (a set: each id once; our automata report rule
//                                                    indices, mapped here to WebKit's ids, see RuleListCompiler)
//     drop ids whose condition fails: if/unless-top-url (and -domain) against the top-URL automaton run
//       on the main document URL with AllResourceFlags, if/unless-frame-url likewise on the frame URL
//     V = sort(locations of S ++ universal actions)  (duplicates kept: WebKit's quirk)
//     take V up to the first ignore-following-rules; then keep only what follows the last
//     ignore-previous-rules (which also withholds the list's global stylesheet)
//   lists in the order given.

import ContentRules
import RuleCompiler
import StrictJSON

/// A compiled rule list ready to answer requests.
public final class LoadedRuleList {
    public let compiled: CompiledRuleList
    let url: Matcher
    let top: Matcher
    let frame: Matcher
    /// The condition automata's flag-free universal ids.
    let topUniversal: [UInt64]
    let frameUniversal: [UInt64]
    /// Action index for every blob offset that starts an action (-1 elsewhere).
    let actionAt: [Int32]
    let actions: [StoredAction]
    let kinds: [ActionKind]
    /// Each action as the JSON object `match` prints.
    let actionJSON: [[UInt8]]
    let universal: [UInt32]
    /// WebKit's action id of every rule (the automata report rule indices).
    let ruleActionID: [UInt64]
    /// Per action index: the last rule (highest index) among the universal flag-free rules with that
    /// action, -1 when none (a universal action is reported without any automaton naming its rule).
    let universalRuleOfAction: [Int32]
    /// True when every url-filter rule that matches all URLs but carries flags (conditions, load or resource
    /// types) is an ignore-previous-rules: a site allowlist, `.*` with `if-top-url`. Alone, such rules
    /// empty an answer; they never add an action to it.
    let flaggedUniversalOnlyIgnorePrevious: Bool

    // Where the automata stand after a URL's host and the byte after it (`prefixEnd`): the rest of a URL resumes
    // from there. Sites and trackers repeat across requests, and the automata of host-anchored rules stop at
    // that byte, so a cached prefix often answers without reading the URL's path at all. The values are pure
    // functions of the prefix, so the caches change nothing but speed.
    //
    // This state, the caches and scratch space below, is per thread: each thread answers with its own `copy()`,
    // and no method that writes it re-enters another. Its accesses are left unchecked: the runtime's checks
    // cost time (docs/matching.md) for a conflict that cannot arise.
    @exclusivity(unchecked) private var urlPrefixes = ByteKeyCache<MatcherPrefix>(slots: 1 << 15)
    // Each entry's flag is the automata's `reportsNothing` for its prefix: most sites and trackers are then
    // answered without reading the cached prefix itself. Small: a condition automaton's prefix is cheap to make
    // again, while a large cache that a stream of new sites fills touches a new page per entry (docs/matching.md).
    @exclusivity(unchecked) private var topPrefixes = ByteKeyCache<MatcherPrefix>(slots: 1 << 12)
    @exclusivity(unchecked) private var framePrefixes = ByteKeyCache<MatcherPrefix>(slots: 1 << 12)
    // The url automata run as one (MatcherProduct) when they are many, as a filter list's are: built as URLs are
    // read, per copy as the caches are.
    @exclusivity(unchecked) private var urlProduct: MatcherProduct?
    // Condition matches of the last top and frame URL (WebKit caches only these too).
    @exclusivity(unchecked) private var topCache = ConditionCache()
    @exclusivity(unchecked) private var frameCache = ConditionCache()
    @exclusivity(unchecked) private var scratch: [UInt64] = []
    @exclusivity(unchecked) private var ids: [UInt64] = []
    @exclusivity(unchecked) private var locations: [UInt32] = []
    /// The rules of the last `actionsFor` that matched and passed their conditions.
    @exclusivity(unchecked) private(set) var matchedRules: [Int32] = []
    /// What the caches store for a head after which an automaton reports nothing (every such prefix is
    /// equal), and for the condition automata the ids of every URL with such a head (their universal ids):
    /// made per copy, so that most entries hold no object of their own, an evicted entry releases an object in
    /// this core's cache, and no reference count is shared by two cores.
    private let nothing: (url: MatcherPrefix, top: DeadEndAnswer, frame: DeadEndAnswer)

    /// The answer at a dead end: a head after which the automaton reports nothing.
    struct DeadEndAnswer {
        let prefix: MatcherPrefix
        let ids: [UInt64]

        init(_ m: Matcher, universal: [UInt64]) {
            prefix = m.nothingPrefix()
            ids = LoadedRuleList.conditionIDs(
                m, universal, resuming: prefix, rest: UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    public init(_ compiled: CompiledRuleList) throws {
        self.compiled = compiled
        url = compiled.urlMatcher
        top = compiled.topURLMatcher
        frame = compiled.frameURLMatcher
        topUniversal = top.universalFlagFree
        frameUniversal = frame.universalFlagFree
        nothing = (
            url.nothingPrefix(), DeadEndAnswer(top, universal: topUniversal),
            DeadEndAnswer(frame, universal: frameUniversal)
        )
        urlProduct = MatcherProduct(url)
        let all = try compiled.actions.withUnsafeBytes { try ActionBlob.all($0) }
        var at = [Int32](repeating: -1, count: compiled.actions.count)
        var actions: [StoredAction] = []
        var json: [[UInt8]] = []
        for (i, entry) in all.enumerated() {
            at[Int(entry.location)] = Int32(i)
            actions.append(entry.action)
            json.append(JSONWriter.bytes(entry.action.jsonValue))
        }
        // A sealed but inconsistent file (found by Fuzz/targets/rbc.swift) must not make a lookup trap later:
        // RBCFile.load checks that every matcher id names a rule of the RULE table and that every rule's
        // action location is an action; a list compiled in memory is consistent by construction.
        actionAt = at
        self.actions = actions
        kinds = actions.map(\.kind)
        actionJSON = json
        universal = compiled.universalActions
        for u in universal where Int(u) >= at.count || at[Int(u)] < 0 {
            throw RuleEngineError("universal action location \(u) is not an action")
        }
        ruleActionID = compiled.rules.map(\.actionID)
        /// The rule a universal id names, and the index of that rule's action.
        func ruleAndAction(_ id: UInt64) throws -> (rule: Int, action: Int) {
            let rule = Int(UInt32(truncatingIfNeeded: id))
            guard rule < compiled.rules.count else { throw RuleEngineError("universal id \(id) names no rule") }
            return (rule, Int(at[Int(compiled.rules[rule].actionLocation)]))
        }
        var universalRule = [Int32](repeating: -1, count: actions.count)
        for id in url.universalFlagFree {
            let (rule, a) = try ruleAndAction(id)
            universalRule[a] = max(universalRule[a], Int32(rule))
        }
        universalRuleOfAction = universalRule
        flaggedUniversalOnlyIgnorePrevious = try url.universalWithFlags.allSatisfy {
            actions[try ruleAndAction($0).action].kind == .ignorePreviousRules
        }
    }

    private init(sharing other: LoadedRuleList) {
        compiled = other.compiled
        url = other.url
        top = other.top
        frame = other.frame
        topUniversal = other.topUniversal
        frameUniversal = other.frameUniversal
        nothing = (
            url.nothingPrefix(), DeadEndAnswer(top, universal: topUniversal),
            DeadEndAnswer(frame, universal: frameUniversal)
        )
        urlProduct = MatcherProduct(url)
        actionAt = other.actionAt
        actions = other.actions
        kinds = other.kinds
        // Copied, not shared: each answer appends one of these, and a shared array's reference count would be
        // written by every core, moving its cache line between them on every answer (docs/matching.md).
        actionJSON = other.actionJSON.map { $0.withUnsafeBufferPointer { Array($0) } }
        universal = other.universal
        ruleActionID = other.ruleActionID
        universalRuleOfAction = other.universalRuleOfAction
        flaggedUniversalOnlyIgnorePrevious = other.flaggedUniversalOnlyIgnorePrevious
        parsed = other.parsed
    }

    /// The same list with its own caches and scratch space, for another thread (the tables are shared).
    public func copy() -> LoadedRuleList { LoadedRuleList(sharing: self) }

    /// Compiles rule-list JSON in memory through the same path as an .rbc file (compile, write, load).
    /// The source is embedded so that answers can be explained rule by rule.
    public static func compiling(json: [UInt8], options: RuleListCompiler.Options = .init()) throws -> LoadedRuleList {
        var options = options
        options.embedSource = true
        let compiled = try RuleListCompiler.compile(json: json, options: options)
        let list = try LoadedRuleList(RBCFile.load(RBCFile.bytes(compiled)))
        list.sourceParser = options.parser
        return list
    }

    /// How the embedded source was parsed (its target), so that explanations number rules the same way.
    var sourceParser = RuleListParserOptions.installedWebKit

    public var identifier: String { compiled.identifier }

    private var parsed: ParsedRuleList? = nil
    /// Explain's parsed url-filter and condition patterns (by case sensitivity and pattern).
    var explainFilters: [String: URLFilter] = [:]

    /// The embedded source's rules (parsed once, for explanations).
    func parsedSource() throws -> ParsedRuleList {
        if let parsed { return parsed }
        let p = try RuleListParser.parse(bytes: compiled.source, options: sourceParser)
        parsed = p
        return p
    }
    public var stylesheet: String { compiled.stylesheet }

    /// Parses the embedded source now (explanations need it; copies made afterwards share it).
    public func parseSource() { _ = try? parsedSource() }

    /// The JSON of compiled rule `rule` (report-identifier rules: their trigger and identifiers), from the
    /// embedded source; nil when the list was compiled without it.
    public func ruleJSON(_ rule: Int) -> JSONValue? {
        guard compiled.hasSource, let parsed = try? parsedSource(), rule < parsed.rules.count else { return nil }
        return Explain.ruleValue(parsed.rules[rule])
    }

    func topURLMatches(_ urlBytes: [UInt8], hostEnd: Int) -> [UInt64] {
        if let hit = topCache.get(urlBytes) { return hit }
        let ids = conditionMatches(top, topUniversal, nothing.top, urlBytes, hostEnd: hostEnd, cache: &topPrefixes)
        topCache.put(urlBytes, ids)
        return ids
    }

    func frameURLMatches(_ urlBytes: [UInt8], hostEnd: Int) -> [UInt64] {
        if let hit = frameCache.get(urlBytes) { return hit }
        let ids = conditionMatches(
            frame, frameUniversal, nothing.frame, urlBytes, hostEnd: hostEnd, cache: &framePrefixes)
        frameCache.put(urlBytes, ids)
        return ids
    }

    /// The sorted ids of a condition automaton for a URL whose host ends at `hostEnd` (0: no host).
    private func conditionMatches(
        _ m: Matcher, _ universal: [UInt64], _ nothing: DeadEndAnswer, _ urlBytes: [UInt8], hostEnd: Int,
        cache: inout ByteKeyCache<MatcherPrefix>
    ) -> [UInt64] {
        urlBytes.withUnsafeBufferPointer { u in
            let cut = prefixEnd(hostEnd: hostEnd, count: u.count)
            let head = UnsafeBufferPointer(rebasing: u[..<cut])
            let prefix: MatcherPrefix
            switch cache.valueUnlessFlagged(head) {
            case (true, _)?: return nothing.ids
            case (false, let cached?)?: prefix = cached
            default:
                cache.prefetchSlotForNewKey(head)
                prefix = m.prefix(head)
                if m.reportsNothing(prefix) {
                    cache.put(head, nothing.prefix, flag: true)
                    return nothing.ids
                }
                cache.put(head, prefix)
            }
            // On from the prefix over the rest of the URL (a final prefix reads none of it: its ids are those of
            // the lists it reached).
            return Self.conditionIDs(m, universal, resuming: prefix, rest: UnsafeBufferPointer(rebasing: u[cut...]))
        }
    }

    /// A condition automaton's sorted ids for the URL `prefix` + `rest` (run with all resource flags).
    static func conditionIDs(
        _ m: Matcher, _ universal: [UInt64], resuming prefix: MatcherPrefix, rest: UnsafeBufferPointer<UInt8>
    ) -> [UInt64] {
        var ids: [UInt64] = []
        m.match(resuming: prefix, rest: rest, requestFlags: allResourceFlags, into: &ids)
        ids.append(contentsOf: universal)
        ids.sort()
        return ids
    }

    /// The url automata over a URL whose host ends at `hostEnd`, from the cached prefix.
    /// `prefix`: the url automata after the URL's head (`urlPrefix`), when the caller has it.
    private func urlMatches(
        _ u: UnsafeBufferPointer<UInt8>, hostEnd: Int, prefix known: MatcherPrefix?, flags: UInt32,
        into result: inout [UInt64]
    ) {
        let cut = prefixEnd(hostEnd: hostEnd, count: u.count)
        let prefix = known ?? urlPrefix(UnsafeBufferPointer(rebasing: u[..<cut]))
        let rest = UnsafeBufferPointer(rebasing: u[cut...])
        if let urlProduct {
            url.match(resuming: prefix, rest: rest, requestFlags: flags, into: &result, product: urlProduct)
        } else {
            url.match(resuming: prefix, rest: rest, requestFlags: flags, into: &result)
        }
    }

    /// The url automata after `head`, cached with its `reportsNothing` as the entry's flag.
    private func urlPrefix(_ head: UnsafeBufferPointer<UInt8>) -> MatcherPrefix {
        if let hit = urlPrefixes.get(head) { return hit }
        return newURLPrefix(head).prefix
    }

    /// The url automata after `head`, not in the cache, made and cached.
    private func newURLPrefix(_ head: UnsafeBufferPointer<UInt8>) -> (prefix: MatcherPrefix, reportsNothing: Bool) {
        urlPrefixes.prefetchSlotForNewKey(head)
        let prefix = urlProduct.map { url.prefix(head, product: $0) } ?? url.prefix(head)
        let reportsNothing = url.reportsNothing(prefix)
        urlPrefixes.put(head, reportsNothing ? nothing.url : prefix, flag: reportsNothing)
        return (prefix, reportsNothing)
    }

    /// Starts loading the top-URL cache slot of a URL's `head` (up to `prefixEnd`).
    func prefetchTopURL(_ head: UnsafeBufferPointer<UInt8>) { topPrefixes.prefetch(head) }

    /// Starts loading the url-prefix cache slot of a URL's `head` (up to `prefixEnd`).
    func prefetchURL(_ head: UnsafeBufferPointer<UInt8>) { urlPrefixes.prefetch(head) }

    /// True when this list reports no action for any load of a URL whose serialization starts with `head` (up
    /// to `prefixEnd`: `scheme://host/`): no universal action or stylesheet, and the url automata all stop
    /// within `head` having reached no action. Universal rules with flags are allowed when they are all
    /// ignore-previous-rules, unless
    /// `deciding`: one of them may then be the rule that decided (an allowlisted site), with no action reported.
    func reportsNothing(urlPrefix head: UnsafeBufferPointer<UInt8>, deciding: Bool) -> Bool {
        guard urlAutomataDecideNothing(deciding: deciding) else { return false }
        // A request to a host some rule names goes on to resume the cached prefix: start loading it now.
        return urlPrefixes.flagPrefetchingObject(head) ?? newURLPrefix(head).reportsNothing
    }

    /// Whether the url automata alone can say that the list reports nothing for a URL: no universal action or
    /// stylesheet, and universal rules with flags only when they are all ignore-previous-rules and not `deciding`.
    private func urlAutomataDecideNothing(deciding: Bool) -> Bool {
        universal.isEmpty && stylesheet.isEmpty
            && (!url.hasUniversalWithFlags || (!deciding && flaggedUniversalOnlyIgnorePrevious))
    }

    /// What a list's url-prefix cache says of a URL's head before `actionsFor` (`headAnswer`).
    enum HeadAnswer {
        /// The list reports nothing for any URL of this head (`reportsNothing(urlPrefix:deciding:)`): skip it.
        case nothing
        /// The url automata after the head, for `actionsFor` to resume: the cache looked up once, where the skip
        /// and `actionsFor` each looked it up.
        case resume(MatcherPrefix)
        /// The automata alone cannot tell (a universal action, a stylesheet, a flagged universal rule that may
        /// decide): `actionsFor` reads the prefix itself.
        case unknown
    }

    func headAnswer(urlPrefix head: UnsafeBufferPointer<UInt8>, deciding: Bool) -> HeadAnswer {
        guard urlAutomataDecideNothing(deciding: deciding) else { return .unknown }
        if let (flagged, value) = urlPrefixes.valueUnlessFlagged(head) {
            guard !flagged, let value else { return .nothing }
            return .resume(value)
        }
        let made = newURLPrefix(head)
        return made.reportsNothing ? .nothing : .resume(made.prefix)
    }

    /// One list's answer: action indices in WebKit's order, and whether an ignore-previous-rules matched.
    /// `prefix`: the url automata after the URL's head, when the caller looked them up already.
    func actionsFor(
        _ load: ResourceLoad, urlBytes: UnsafeBufferPointer<UInt8>, prefix: MatcherPrefix?, into out: inout [Int32]
    ) -> Bool {
        let flags = load.flags | ConditionFlags.mask
        scratch.emptyKeepingCapacity()
        matchedRules.emptyKeepingCapacity()
        urlMatches(
            urlBytes, hostEnd: load.url?.hostRange.upperBound ?? 0, prefix: prefix, flags: flags, into: &scratch)
        if scratch.isEmpty && universal.isEmpty { return false }
        sortUnique(&scratch)
        ids.emptyKeepingCapacity()
        for id in scratch {
            let condition = UInt32(truncatingIfNeeded: id >> 32) & ConditionFlags.mask
            if condition != 0 {
                let keep: Bool
                switch condition {
                case ConditionFlags.ifTopURL:
                    keep = binaryContains(topURLMatches(load.mainDocumentURL, hostEnd: load.mainDocumentHostEnd), id)
                case ConditionFlags.unlessTopURL:
                    keep = !binaryContains(topURLMatches(load.mainDocumentURL, hostEnd: load.mainDocumentHostEnd), id)
                case ConditionFlags.ifFrameURL:
                    keep = binaryContains(frameURLMatches(load.frameURL, hostEnd: load.frameHostEnd), id)
                case ConditionFlags.unlessFrameURL:
                    keep = !binaryContains(frameURLMatches(load.frameURL, hostEnd: load.frameHostEnd), id)
                default: keep = true
                }
                if !keep { continue }
            }
            let rule = Int(UInt32(truncatingIfNeeded: id))
            matchedRules.append(Int32(rule))
            ids.append(ruleActionID[rule])
        }
        // WebKit's set of ids: rules sharing an action and flags count once.
        sortUnique(&ids)
        locations.emptyKeepingCapacity()
        for id in ids { locations.append(UInt32(truncatingIfNeeded: id)) }
        locations.append(contentsOf: universal)
        locations.sort()

        let start = out.count
        for loc in locations {
            let a = actionAt[Int(loc)]
            if kinds[Int(a)] == .ignoreFollowingRules { break }
            out.append(a)
        }
        var i = out.count
        while i > start {
            if kinds[Int(out[i - 1])] == .ignorePreviousRules {
                out.removeSubrange(start..<i)
                return true
            }
            i -= 1
        }
        return false
    }

    /// Whether `reported` (an `actionsFor` output) holds a block.
    func reportsBlock<Reported: Sequence<Int32>>(_ reported: Reported) -> Bool {
        reported.contains { kinds[Int($0)] == .block }
    }

    /// The deciding rules of the last `actionsFor`: the last (highest-index) matching rule whose block
    /// was reported, and the last matching ignore-previous-rules rule that was not cut off by an
    /// ignore-following-rules. `reported` is that call's output (action indices).
    func decidingRules(reported: ArraySlice<Int32>) -> (block: Int32, ignorePrevious: Int32) {
        var block: Int32 = -1, ignorePrevious: Int32 = -1
        // Reported actions lie after the last ignore-previous-rules and before the first
        // ignore-following-rules; an ignore-previous-rules counts when it lies before that cut.
        var cut = UInt32.max
        for loc in locations where kinds[Int(actionAt[Int(loc)])] == .ignoreFollowingRules {
            cut = loc
            break
        }
        let reportedBlock = reportsBlock(reported)
        var lastIgnorePrevious: UInt32? = nil
        for loc in locations where loc < cut && kinds[Int(actionAt[Int(loc)])] == .ignorePreviousRules {
            lastIgnorePrevious = loc
        }
        func consider(_ rule: Int32) {
            let loc = compiled.rules[Int(rule)].actionLocation
            guard loc < cut else { return }
            switch kinds[Int(actionAt[Int(loc)])] {
            case .block where reportedBlock && (lastIgnorePrevious.map { loc > $0 } ?? true): block = max(block, rule)
            case .ignorePreviousRules: ignorePrevious = max(ignorePrevious, rule)
            default: break
            }
        }
        for rule in matchedRules { consider(rule) }
        for loc in universal {
            let r = universalRuleOfAction[Int(actionAt[Int(loc)])]
            if r >= 0 { consider(r) }
        }
        return (block, ignorePrevious)
    }
}

/// Sorts and removes duplicates in place (the arrays are short: the rules matching one URL).
@inline(__always) func sortUnique(_ a: inout [UInt64]) {
    guard a.count > 1 else { return }
    a.sort()
    var w = 1
    for r in 1..<a.count where a[r] != a[w - 1] {
        a[w] = a[r]
        w += 1
    }
    a.removeLast(a.count - w)
}

/// The last URL's answer (the requests of one page share their top and frame URLs).
struct ConditionCache {
    private var lastURL: [UInt8]? = nil
    private var lastIDs: [UInt64] = []

    func get(_ url: [UInt8]) -> [UInt64]? {
        if let l = lastURL, l == url { return lastIDs }
        return nil
    }

    mutating func put(_ url: [UInt8], _ ids: [UInt64]) {
        lastURL = url
        lastIDs = ids
    }
}

/// Where the prefix caches cut a URL whose host ends at `hostEnd`: after the host and the byte that follows
/// it ('/' or ':' in a special URL). Host-anchored patterns (`([^/]*\.)?d[:/]`) decide at that byte, so every
/// automaton of a host no rule names has stopped there, and the cached prefix answers for the whole URL.
/// Any cut gives the same ids (the automata are deterministic); this one makes the caches final most often.
@inline(__always) func prefixEnd(hostEnd: Int, count: Int) -> Int { min(hostEnd + 1, count) }

@inline(__always) func binaryContains(_ sorted: [UInt64], _ value: UInt64) -> Bool {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) >> 1
        if sorted[mid] < value { lo = mid + 1 } else { hi = mid }
    }
    return lo < sorted.count && sorted[lo] == value
}

public struct RuleEngineError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Several rule lists answering loads together, in the order given.
public final class RuleEngine {
    public let lists: [LoadedRuleList]
    public let resolver = URLResolver()

    public init(lists: [LoadedRuleList]) {
        self.lists = lists
    }

    /// An engine answering the same, for another thread.
    public func copy() -> RuleEngine { RuleEngine(lists: lists.map { $0.copy() }) }

    public func resolve(_ request: MatchRequest) throws -> ResourceLoad {
        try ResourceLoad(request, resolver: resolver)
    }

    public func match(_ request: MatchRequest) throws -> MatchResult {
        match(try resolve(request))
    }

    public func match(_ load: ResourceLoad) -> MatchResult {
        var result = MatchResult()
        match(load, into: &result)
        return result
    }

    /// True when no list reports an action for a load of `url`, whatever its type, site and frame (an invalid
    /// URL gets nothing): `match --requests` then answers without resolving the rest of the request. Most
    /// requests are to hosts no rule names. With `deciding`, also no rule can be the deciding one (`match
    /// --explain`); without it, an allowlist's ignore-previous-rules may match, which changes no answer.
    public func reportsNothing(for url: CanonicalURL?, deciding: Bool) -> Bool {
        guard !lists.isEmpty, let url, !url.isData else { return true }
        return url.bytes.withUnsafeBufferPointer {
            reportsNothing(
                urlPrefix: UnsafeBufferPointer(
                    rebasing: $0[..<prefixEnd(hostEnd: url.hostRange.upperBound, count: $0.count)]),
                deciding: deciding)
        }
    }

    /// Starts loading the cache slots that matching a load with this top URL (raw, as a request gives it)
    /// reads: each list's top-URL automata. Only plain hosts, whose raw bytes are the keys. Takes
    /// `CanonicalURL.plainHost(raw)`, which the URL's parse reads too. (The site's registrable domain is
    /// rarely needed: see `URLResolver.isThirdParty`.)
    func prefetchSite(topURL raw: UnsafeBufferPointer<UInt8>, plainHost: CanonicalURL.PlainHost?) {
        guard let (_, host) = plainHost else { return }
        guard let head = CanonicalURL.rawHead(raw, hostEnd: host.upperBound) else { return }
        for list in lists { list.prefetchTopURL(head) }
    }

    /// Starts loading each list's url-prefix cache slot for a URL (raw, as a request gives it) with a plain host
    /// ending at `hostEnd`: `reportsNothing(urlPrefix:)` reads it first. Only when the raw bytes are the key.
    public func prefetchURL(_ raw: UnsafeBufferPointer<UInt8>, hostEnd: Int) {
        guard let head = CanonicalURL.rawHead(raw, hostEnd: hostEnd) else { return }
        for list in lists { list.prefetchURL(head) }
    }

    /// `reportsNothing(for:deciding:)` for a URL (raw, as a request gives it) whose plain host
    /// (`CanonicalURL.plainHost`) ends at `hostEnd`, asked before the URL is parsed: when the URL is valid its
    /// serialization begins with these bytes, and when it is not, WebKit reports nothing for it either. Its
    /// serialization has a '/' after the host, where the raw URL may have '?', '#' or its end.
    public func reportsNothing(rawURL raw: UnsafeBufferPointer<UInt8>, hostEnd: Int, deciding: Bool) -> Bool {
        if let head = CanonicalURL.rawHead(raw, hostEnd: hostEnd) {
            return reportsNothing(urlPrefix: head, deciding: deciding)
        }
        var head = Array(raw[..<hostEnd])
        head.append(UInt8(ascii: "/"))
        return head.withUnsafeBufferPointer { reportsNothing(urlPrefix: $0, deciding: deciding) }
    }

    /// As `reportsNothing(for:deciding:)`, given only the start of a valid URL's serialization up to
    /// `prefixEnd` (`scheme://host/`).
    func reportsNothing(urlPrefix: UnsafeBufferPointer<UInt8>, deciding: Bool) -> Bool {
        lists.allSatisfy { $0.reportsNothing(urlPrefix: urlPrefix, deciding: deciding) }
    }

    /// Fills `result` (reusing its storage), and `result.decidedBy` as `deciding` asks: costs a pass over the
    /// matched rules of each list, and allocates nothing either.
    public func match(_ load: ResourceLoad, into result: inout MatchResult, deciding: MatchResult.Deciding = .none) {
        result.clear()
        guard !lists.isEmpty, let url = load.url, !load.isData else { return }
        result.lists = lists
        // A blocked load's deciding rule lies in a list that reported its block, which no skip passes over; an
        // allowed load's may be a list's flagged universal exemption, reporting nothing.
        let decidesExemptions = deciding == .all
        var lastBlock: DecidingRule? = nil, firstIgnorePrevious: DecidingRule? = nil
        url.bytes.withUnsafeBufferPointer { urlBytes in
            let head = UnsafeBufferPointer(
                rebasing: urlBytes[..<prefixEnd(hostEnd: url.hostRange.upperBound, count: urlBytes.count)])
            for (li, list) in lists.enumerated() {
                // A list with no action (and, deciding, no deciding rule) for any URL of this head: a release's
                // further lists are about a few trackers' hosts each, so most requests skip all but one.
                let prefix: MatcherPrefix?
                switch list.headAnswer(urlPrefix: head, deciding: decidesExemptions) {
                case .nothing: continue
                case .resume(let p): prefix = p
                case .unknown: prefix = nil
                }
                result.indices.emptyKeepingCapacity()
                let sawIgnorePrevious = list.actionsFor(load, urlBytes: urlBytes, prefix: prefix, into: &result.indices)
                for a in result.indices { result.entries.append(MatchResult.Entry(list: Int32(li), action: a)) }
                if !sawIgnorePrevious, !list.stylesheet.isEmpty { result.stylesheetLists.append(li) }
                if deciding == .none || (deciding == .blocks && !list.reportsBlock(result.indices)) { continue }
                let d = list.decidingRules(reported: result.indices[...])
                if d.block >= 0 { lastBlock = DecidingRule(list: li, rule: Int(d.block)) }
                // An allowed load is decided by the first list's exemption: the main list comes first, and
                // its exemption (a temp-unprotected site) is why the page's trackers load, not a later list's.
                if d.ignorePrevious >= 0, firstIgnorePrevious == nil {
                    firstIgnorePrevious = DecidingRule(list: li, rule: Int(d.ignorePrevious))
                }
            }
        }
        switch deciding {
        case .none: break
        case .blocks: result.decidedBy = lastBlock
        case .all: result.decidedBy = lastBlock ?? firstIgnorePrevious
        }
    }
}

/// The rule that decided a load (see MatchResult.decidedBy).
public struct DecidingRule: Hashable, Sendable {
    /// Index of the list, in the order given.
    public var list: Int
    /// Index among that list's compiled rules (`compiled.rules`).
    public var rule: Int

    public init(list: Int, rule: Int) {
        self.list = list
        self.rule = rule
    }
}
