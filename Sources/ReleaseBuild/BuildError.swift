// A failed build names the component that broke: the fallback ladder starts from it, and `build` prints it.

import TrackerData

/// What broke a build: one of its inputs, the rule lists as a whole, or the previous release; or a gate
/// (compile cost, content) that refused a release which built.
public enum BuildComponent: String, Sendable, CustomStringConvertible {
    case tds, config, surrogates, unprotected, rules, previous, gate
    case filterList = "filter-list"

    public var description: String { rawValue }

    /// The input a conversion failure is charged to.
    init(_ component: ConversionInputs.Component) {
        switch component {
        case .tds: self = .tds
        case .config: self = .config
        case .unprotected: self = .unprotected
        }
    }
}

public struct BuildError: Error, CustomStringConvertible {
    /// The input that broke the build, or the lists as a whole.
    public let component: BuildComponent
    public let reason: String
    public var description: String { "\(component): \(reason)" }
}
