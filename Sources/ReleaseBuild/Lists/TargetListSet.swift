// One target's lists of a release: the rules split at that engine's limit, each part checked against the
// engine, compiled with its parser and recorded in the manifest.

import ContentRules
import Digest
import Release
import Provenance
import RuleBuilder
import RuleCompiler

/// One target's lists: the rules split at that engine's limit, each part checked against the engine and
/// compiled with its parser.
struct TargetListSet {
    var parts: [RuleListPart]
    var files: [(name: String, bytes: [UInt8])] = []
    var lists: [ManifestList] = []
    var identifiers: [String] = []
    var compiled: [CompiledRuleList] = []
    var counts: [ManifestCount: Double] = [:]
    /// Rules left out because the target cannot express them.
    var issues: [String] = []
    /// The target's whole rule list before splitting (the builder's, re-encoded for the target).
    var rules: [ContentRule] = []
    var provenance: [RuleProvenance] = []
    /// Rules dropped because their own automaton was over the compile budget.
    var droppedRules = 0
}

extension TargetListSet {
    /// Every target's lists, the primary one's first (rules.json, ...) with its provenance; returns the primary set.
    static func compileTargets(
        _ built: RuleBuildResult, dataset: String?, options: BuildOptions, progress: ReleaseBuilder.Progress,
        into out: inout ReleaseListOutputs, warnings: inout [String]
    ) throws -> TargetListSet {
        var primary: TargetListSet? = nil
        for (t, target) in options.targets.enumerated() {
            let set = try compileListSet(
                built, target: target, primary: t == 0, dataset: dataset, options: options, progress: progress)
            out.files += set.files
            out.lists += set.lists
            warnings += set.issues
            for (k, v) in set.counts { out.counts[k, default: 0] += v }
            if t == 0 { primary = set }
        }
        guard let primary else { throw BuildError(component: .rules, reason: "no --target") }
        out.identifiers = primary.identifiers
        out.files.append((ReleaseFiles.provenance, RuleProvenance.listBytes(primary.provenance)))
        out.listNames = (1...primary.parts.count).map(ReleaseFiles.rules(part:))
        return primary
    }

    /// The builder's rules re-encoded for `target` and split at min(--max-rules, the target's rule limit).
    static func targetParts(_ built: RuleBuildResult, target: EngineProfile, options: BuildOptions) throws
        -> TargetListSet
    {
        let adapted = TargetEncoding.adapt(
            RuleBuildResult(rules: built.rules, provenance: built.provenance), for: target)
        if options.strict, let issue = adapted.issues.first {
            throw BuildError(component: .rules, reason: "\(target.name): \(issue)")
        }
        do {
            let limit = min(options.maxRules, target.maximumRuleCount)
            var set = TargetListSet(
                parts: try RuleListSplitter.split(rules: adapted.rules, provenance: adapted.provenance, maxRules: limit)
            )
            set.issues = adapted.issues.map { "conversion (\(target.name)): \($0)" }
            set.rules = adapted.rules
            set.provenance = adapted.provenance
            return set
        } catch {
            throw BuildError(component: .rules, reason: "\(target.name): " + String(describing: error))
        }
    }

    /// Compiles every part of `set`; throws ListOverBudget when a rule's own automaton is over the budget and
    /// the build may drop it (never with --strict).
    static func compileParts(
        _ set: TargetListSet, target: EngineProfile, primary: Bool, dataset: String?,
        options: BuildOptions, progress: ReleaseBuilder.Progress
    ) throws -> TargetListSet {
        var set = set
        (set.files, set.lists, set.identifiers, set.compiled, set.counts) = ([], [], [], [], [:])
        let count = set.parts.count
        for (i, part) in set.parts.enumerated() {
            let n = i + 1
            let rulesName = primary ? ReleaseFiles.rules(part: n) : ReleaseFiles.rules(part: n, target: target.name)
            let rbcName = primary ? ReleaseFiles.rbc(part: n) : ReleaseFiles.rbc(part: n, target: target.name)
            progress("compiling \(rulesName) (\(n) of \(count), \(part.rules.count) rules, \(target.name))")
            let json = CanonicalRuleWriter.bytes(part.rules)
            let (parsed, compiled): (ParsedRuleList, CompiledRuleList)
            do {
                parsed = try target.checkGenerated(json, ruleCount: part.rules.count)
                let base = primary ? options.name : "\(options.name).\(target.name)"
                let name = count == 1 ? base : "\(base)-part\(n)"
                compiled = try RuleListCompiler.compile(
                    parsed, source: json,
                    options: .init(
                        name: name, dataset: dataset,
                        parser: RuleListParserOptions(target: target), budget: options.budget))
            } catch let e as CompileBudgetErrors where e.isRuleLevel && !options.strict {
                throw ListOverBudget(part: n, errors: e)
            } catch {
                throw BuildError(component: .rules, reason: "\(rulesName) (\(target.name)): \(error)")
            }
            set.issues += webKitPainWarnings(parsed, part: part, n: n)
            let rbc = RBCFile.bytes(compiled)
            set.files.append((rulesName, json))
            set.files.append((rbcName, rbc))
            // Each part of a split primary list names its provenance, so that `match --explain` names the
            // deciding rule's tracker in every part (provenance.json stays the whole list's).
            let provenanceName = primary && count > 1 ? ReleaseFiles.provenance(part: n) : nil
            if let provenanceName { set.files.append((provenanceName, RuleProvenance.listBytes(part.provenance))) }
            set.identifiers.append(compiled.identifier)
            set.compiled.append(compiled)
            set.lists.append(
                ManifestList(
                    identifier: compiled.identifier, rules: rulesName, rbc: rbcName, provenance: provenanceName,
                    ruleCount: part.rules.count,
                    trackerUnits: part.units.count, sha256: Digest.hex(.sha256, json), target: target.name,
                    role: .main))
            guard primary else { continue }
            set.counts[.rbcBytes, default: 0] += Double(rbc.count)
            set.counts[.urlMatcherBytes, default: 0] += Double(compiled.urlMatcher.statistics.bytes)
            set.counts[.topURLMatcherBytes, default: 0] += Double(compiled.topURLMatcher.statistics.bytes)
            set.counts[.frameURLMatcherBytes, default: 0] += Double(compiled.frameURLMatcher.statistics.bytes)
        }
        return set
    }

    /// What WebKit's own compiler would not finish in reasonable time or memory (the apps compile the list
    /// with it): reported, the list is kept.
    static func webKitPainWarnings(_ list: ParsedRuleList, part: RuleListPart, n: Int) -> [String] {
        guard let pain = try? RuleListCompiler.webKitPain(list) else { return [] }
        return pain.map { "rules: list \(n): \($0) [from \(part.provenance[$0.rule])]" }
    }
}
