// radarblock tds: Tracker Radar domain + entity files -> a TDS v5 (policy, surrogate mapping, overrides).

import FileIO
import Foundation
import Pipeline
import StrictJSON
import TDSGenerator
import TrackerData

struct TDSCommand: Command {
    static let name = "tds"
    static let summary = "build a tracker data set (TDS v5) from Tracker Radar files"
    static let grammar = CommandGrammar(forms: ["--radar DIR [--entities DIR] [--region R]... [--policy FILE] [--mapping FILE]",
                                                "--radar DIR [--overrides FILE] [--explain DOMAIN] [--report FILE] [--compare TDS] [--strict] [-o OUT]"], parts: [
        .text("""
            Reads Tracker Radar domain files (DIR/domains/<REGION>/*.json, or a domains folder) and entity files
            (DIR/entities, or --entities), decides with the policy which domains are trackers and with which
            default, derives rules from their resources, adds surrogate rules from tracker-surrogates' mapping.json,
            applies the overrides, and writes the TDS (sorted keys, rules most specific first; same inputs, same bytes).
            """),
        .options("options", [
            OptionSpec("--radar", value: "DIR", help: """
                tracker-radar checkout or domains folder; several regions are merged (largest
                numbers win, see TrackerData's RadarLoader)
                """),
            OptionSpec("--entities", value: "DIR", help: "entity files (default: DIR/entities)"),
            OptionSpec("--region", value: "R", repeatable: true, help: "read only this region folder (repeatable; default: all)"),
            OptionSpec("--policy", value: "FILE", help: "policy JSON (default: the built-in defaults = data/policy.json; docs/tds-policy.md)"),
            OptionSpec("--mapping", value: "FILE", help: "tracker-surrogates mapping.json (surrogate and block-ctl-* rules)"),
            OptionSpec("--overrides", value: "FILE", help: """
                human decisions (force default, remove, add/drop rules, exceptions, options), applied
                last and listed in --report (see data/overrides.example.json)
                """),
            OptionSpec("--explain", value: "DOMAIN", repeatable: true, help: """
                print why DOMAIN is or is not a tracker and where each rule came from (stdout);
                writes no TDS unless -o is given
                """),
            OptionSpec("--report", value: "FILE", help: """
                write the generation report (every decision with its reason, rule provenance,
                overrides applied, issues) as JSON
                """),
            OptionSpec("--compare", value: "TDS", help: """
                print agreement with a reference TDS on which domains are trackers and with which
                default (policy decisions, every radar domain), with every disagreement and its reason
                """),
            OptionSpec("--strict", help: """
                a malformed radar file fails the run (default: reported by path and skipped); a
                failed strict run writes no TDS (-o OUT is left as it was; --report still says why)
                """),
            .output(#"output TDS, "-" for stdout (default, unless --explain/--compare); written atomically"#),
        ]),
        .text("""
            Radar files that are unusable, rule regexes WebKit rejects, overrides that do not apply are reported on
            stderr (and in --report); exit status 1 when --strict and anything was reported.
            """),
    ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let radarDir = try args.required("--radar")
        let strict = args.has("--strict")
        let regions = args.all("--region")
        let files = TDSGeneratorFiles(
            radar: RadarIngest.Options(directory: radarDir, entitiesDirectory: args.value("--entities"),
                                       regions: regions.isEmpty ? nil : Set(regions), strict: strict),
            policyPath: args.value("--policy"), mappingPath: args.value("--mapping"), overridesPath: args.value("--overrides"),
            webKit: RuleRegex.webKit)

        let (generation, policy): (TDSGeneration, TDSPolicy)
        do {
            (generation, policy) = try TDSGenerator.generate(files: files)
        } catch let e as TrackerDataError {
            throw InputError(e.description)
        }
        for issue in generation.issues { Console.warning(issue.description) }
        if !generation.notes.isEmpty {
            Console.note("radarblock: \(generation.notes.count) note(s) (mapping entries for non-trackers, cnames into non-trackers, owners without entity files)"
                + (args.value("--report").map { ": listed in \($0)" } ?? ": run with --report FILE to list them"))
        }

        let explain = args.all("--explain")
        for domain in explain { print(generation.explain(domain, policy: policy), terminator: "") }
        var status = ExitCode.success
        if let referencePath = args.value("--compare") {
            let (reference, refIssues) = try TrackerDataSet.load(path: referencePath)
            for issue in refIssues { Console.warning(issue.description) }
            print(TDSAgreement.compare(generation, reference: reference).text, terminator: "")
        }
        if let report = args.value("--report") {
            try FileIO.write(JSONWriter.bytes(generation.reportJSON(policy: policy), options: [.sortedKeys]) + [0x0A], to: report)
        }
        // A strict run that failed leaves no TDS behind: a later step must not pick up a rejected one.
        let failedStrict = strict && !generation.issues.isEmpty
        let output = args.value("--output") ?? ((explain.isEmpty && args.value("--compare") == nil) ? "-" : nil)
        if failedStrict, let output {
            Console.note("radarblock: --strict: \(generation.issues.count) issue(s); \(output == "-" ? "no TDS written to stdout" : "\(output) not written")")
        }
        if let output, !failedStrict {
            try FileIO.write(generation.tds.canonicalBytes + [0x0A], to: output)
            if output != "-" {
                let t = generation.tds.trackers.values
                Console.note("\(output): \(t.count) trackers (\(t.filter { $0.defaultAction == .block }.count) block, "
                    + "\(t.filter { $0.defaultAction == .ignore }.count) ignore), \(generation.tds.ruleCount) rules, "
                    + "\(generation.tds.entities.count) entities, \(generation.tds.cnames.count) cnames from \(generation.decisions.filter { $0.radar != nil }.count) radar domains"
                    + (generation.issues.isEmpty ? "" : "; \(generation.issues.count) issue(s) reported"))
            }
        }
        if failedStrict { status = ExitCode.failure }
        return status
    }
}
