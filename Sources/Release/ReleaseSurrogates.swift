// What a release's pages get as surrogates: its input TDS copy and the names in its input surrogates.txt, read
// once for `match` (a release given as a side of the page) and `diff` (DiffSide).

import FileIO
import Foundation
import RuleDiff
import RuleEngine
import Surrogates
import TrackerData

public enum ReleaseSurrogates {
    /// A release's TDS and the surrogates its pages get (by tracker and TDS rule index).
    public static func of(release dir: String) throws -> (tds: TrackerDataSet?, surrogates: [TDSRuleID: String]) {
        let tds = try dataset(ofRelease: dir)
        return (tds, byRule(tds: tds, names: try names(.directory(dir))))
    }

    /// Surrogate names by (tracker, rule index), for telling "surrogate" from "blocked": a TDS rule naming a
    /// surrogate the bundle lacks (not in `names`) blocks, as the page gets no replacement; nil names: all.
    public static func byRule(tds: TrackerDataSet?, names: Set<String>?) -> [TDSRuleID: String] {
        let all = tds.map(DecisionSide.surrogates) ?? [:]
        guard let names else { return all }
        return all.filter { names.contains($0.value) }
    }

    /// The TDS a release was built from (its input copy), when it has one.
    public static func dataset(ofRelease dir: String) throws -> TrackerDataSet? {
        let tdsPath = dir + "/" + ReleaseFiles.inputTDS
        guard FileManager.default.fileExists(atPath: tdsPath) else { return nil }
        return try TrackerDataSet.decode(bytes: try FileIO.read(tdsPath), source: tdsPath, strict: false).0
    }

    /// The names of the surrogates in a release's input surrogates.txt (none when it has none).
    public static func names(_ files: ReleaseFileSource) throws -> Set<String> {
        guard files.exists(ReleaseFiles.inputSurrogates) else { return [] }
        let name = files.path(ReleaseFiles.inputSurrogates)
        return Set(
            try SurrogatesFile.parse(bytes: try files.read(ReleaseFiles.inputSurrogates), source: name).map(\.name))
    }
}
