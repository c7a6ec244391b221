// `radarblock --version`: what a bug report or a CI log needs to reproduce a run.

import ContentRules
import RuleCompiler

enum VersionInfo {
    /// The engine profile radarblock models when no --target is given.
    static var defaultTargetProfile: String { EngineProfile.default.name }

    static var text: String {
        """
        radarblock \(ToolVersion.current)
        rbc format version \(RBCFile.formatVersion)
        default target \(defaultTargetProfile)

        """
    }
}
