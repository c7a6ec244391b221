// `radarblock --version`: what a bug report or a CI log needs to reproduce a run.

import ContentRules
import RuleCompiler

enum VersionInfo {
    /// The engine profile radarblock models when no --target is given (issue 17 replaces this constant with
    /// its profile table's default; keep the printed line as it is).
    static let defaultTargetProfile = "webkitgtk-2.50"

    static var text: String {
        """
        radarblock \(ToolVersion.current)
        rbc format version \(RBCFile.formatVersion)
        default target \(defaultTargetProfile)

        """
    }
}
