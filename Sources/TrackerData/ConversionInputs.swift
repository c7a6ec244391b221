// The inputs of every conversion, read the one way the CLI (convert, surrogates) and the release builder
// share: a TDS, and optionally a privacy config and a user-unprotected sites list. Strict decoders throw the
// first problem; otherwise each decoder's issues are kept, per input, for the caller to show or to charge.

import FileIO

public struct ConversionInputs: Sendable {
    public enum Component: String, Sendable { case tds, config, unprotected }

    /// One input's bytes and the name its issues and errors use (usually its path).
    public struct Source: Sendable {
        public var bytes: [UInt8]
        public var name: String
        public init(bytes: [UInt8], name: String) {
            self.bytes = bytes
            self.name = name
        }
    }

    /// An input that cannot be used, with the input it came from; it reads as the underlying error.
    public struct Failure: Error, CustomStringConvertible {
        public let component: Component
        public let underlying: Error
        public var description: String { String(describing: underlying) }
    }

    public var tds: TrackerDataSet
    public var config: PrivacyConfig?
    public var unprotected: UnprotectedSites?
    public var tdsIssues: [DecodeIssue] = []
    public var configIssues: [DecodeIssue] = []
    public var unprotectedIssues: [DecodeIssue] = []

    /// Every issue, TDS first, then config, then unprotected sites.
    public var issues: [DecodeIssue] { tdsIssues + configIssues + unprotectedIssues }

    public static func decode(tds: Source, config: Source?, unprotected: Source?, strict: Bool) throws
        -> ConversionInputs
    {
        let (set, tdsIssues) = try charged(.tds) {
            try TrackerDataSet.decode(bytes: tds.bytes, source: tds.name, strict: strict)
        }
        var inputs = ConversionInputs(tds: set, tdsIssues: tdsIssues)
        if let config {
            (inputs.config, inputs.configIssues) = try charged(.config) {
                try PrivacyConfig.decode(bytes: config.bytes, source: config.name, strict: strict)
            }
        }
        if let unprotected {
            (inputs.unprotected, inputs.unprotectedIssues) = try charged(.unprotected) {
                try UnprotectedSites.parse(bytes: unprotected.bytes, source: unprotected.name, strict: strict)
            }
        }
        return inputs
    }

    /// Reads the files ("-" = stdin) and decodes them.
    public static func load(tdsPath: String, configPath: String?, unprotectedPath: String?, strict: Bool) throws
        -> ConversionInputs
    {
        func source(_ path: String, _ component: Component) throws -> Source {
            try charged(component) { Source(bytes: try FileIO.read(path), name: path) }
        }
        return try decode(
            tds: source(tdsPath, .tds), config: configPath.map { try source($0, .config) },
            unprotected: unprotectedPath.map { try source($0, .unprotected) }, strict: strict)
    }

    static func charged<T>(_ component: Component, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw Failure(component: component, underlying: error) }
    }
}
