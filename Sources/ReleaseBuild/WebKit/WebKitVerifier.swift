// WebKitVerifier: WebKit's own compiler as `build --verify-webkit` needs it. Injected so that ReleaseBuild does not
// link WebKitBridge (its run-time loader of WebKitGTK): the radarblock CLI builds it from WebKitBridge
// (WebKitEngine.verifier), and the manifest's webKitVerification records what it answered.

/// WebKit's answer for one rule list.
public struct WebKitVerdict: Sendable, Equatable {
    public var accepted: Bool
    /// WebKit's error message when it rejected the list.
    public var message: String?
    public var detail: String?
    public var seconds: Double
    /// WebKit's compiled size when it accepted the list.
    public var bytes: Int?

    public init(accepted: Bool, message: String?, detail: String?, seconds: Double, bytes: Int?) {
        self.accepted = accepted
        self.message = message
        self.detail = detail
        self.seconds = seconds
        self.bytes = bytes
    }
}

public struct WebKitVerifier: Sendable {
    /// A loaded compiler: its version and its verdict on a rules JSON.
    public struct Loaded {
        public var version: String
        public var verify: ([UInt8]) throws -> WebKitVerdict

        public init(version: String, verify: @escaping ([UInt8]) throws -> WebKitVerdict) {
            self.version = version
            self.verify = verify
        }
    }

    /// Loads the compiler; called only when a build reaches the verify step (a fallback or --if-changed
    /// build that verifies nothing never loads WebKit). A throw becomes the build's `--verify-webkit:` error.
    public var load: @Sendable () throws -> Loaded

    public init(load: @escaping @Sendable () throws -> Loaded) { self.load = load }
}
