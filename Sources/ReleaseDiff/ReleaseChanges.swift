// changes.md, changes.html and changes.json of a release built with --previous: the previous release against
// the build's products, as `diff` compares two releases, with WebKit's compile cost when it was measured.

import ContentRules
import Provenance
import Release
import RuleBuilder
import RuleDiff
import StrictJSON
import TrackerData

/// `changes.md` / `changes.json` of a release built with --previous.
public struct ReleaseChanges {
    public let report: DiffReport
    public func json() throws -> JSONValue { try report.json() }

    /// `newLists`: the new release's lists as ReleaseLists reads them (main parts and click-to-load lists);
    /// the main list's rules and provenance are the builder's, unsplit.
    public static func compare(
        previousRelease: String, newManifest: Manifest, newTDS: TrackerDataSet, newRules: [ContentRule],
        newProvenance: [RuleProvenance], newLists: [ReleaseList], newFiles: ReleaseFileSource
    ) throws -> ReleaseChanges {
        let old = try DiffSide(release: previousRelease)
        let new = try DiffSide(
            newRelease: newManifest, tds: newTDS, rules: newRules, provenance: newProvenance, lists: newLists,
            files: newFiles)
        var report = try ReleaseComparison.compare(old, new, options: DiffOptions())
        report.corpus = CorpusDescription(kind: .derived)
        return ReleaseChanges(report: report)
    }

    /// changes.md: the bounded summary, with WebKit's compile cost change in its verdict when it was measured.
    public func markdown(compileCost: CompileCostChange?) throws -> String {
        try withCost(compileCost).markdown()
    }

    /// changes.html: the same as one self-contained page.
    public func html(compileCost: CompileCostChange?) throws -> String {
        try withCost(compileCost).html()
    }

    func withCost(_ compileCost: CompileCostChange?) -> DiffReport {
        var report = report
        report.compileCostLine = compileCost?.summaryLine
        report.compileCostMarkdown = compileCost?.markdown
        return report
    }
}
