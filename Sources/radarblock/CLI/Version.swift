// `radarblock --version`: what a bug report or a CI log needs to reproduce a run.

import ContentRules
import RuleCompiler

enum VersionInfo {
    /// The engine profiles radarblock writes for and reads as when no --target is given.
    static var defaultTargetProfile: String {
        "\(EngineProfile.portable.name) (writing), \(EngineProfile.default.name) (reading)"
    }

    static var text: String {
        """
        radarblock \(ToolVersion.current)
        rbc format version \(RBCFile.formatVersion)
        default target \(defaultTargetProfile)

        """
    }
}
