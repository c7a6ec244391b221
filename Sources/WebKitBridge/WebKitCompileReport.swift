// What `compile --engine webkit --format json` prints: one WebKit compile's figures as a JSON object, the contract
// between that command and its readers (`build --previous`'s cost meter, scripts/bench/webkit_measure.py).
// One encoder and one decoder, here, so the keys are spelled once.

import StrictJSON

/// The figures of one compile into a WebKit store, as `compile --format json` writes them.
public struct WebKitCompileReport: Sendable, Equatable {
    /// WebKit's file, `<store>/ContentRuleList-<encoded identifier>`.
    public var file: String
    public var webkitVersion: String
    public var bytes: Int
    /// Wall time of the compile (save call to callback).
    public var seconds: Double
    /// The process's peak RSS after the compile and before it (KiB).
    public var peakRSSKB: Int
    public var rssBeforeKB: Int
    public var cpuSeconds: Double

    public init(
        file: String, webkitVersion: String, bytes: Int, seconds: Double, peakRSSKB: Int, rssBeforeKB: Int,
        cpuSeconds: Double
    ) {
        self.file = file
        self.webkitVersion = webkitVersion
        self.bytes = bytes
        self.seconds = seconds
        self.peakRSSKB = peakRSSKB
        self.rssBeforeKB = rssBeforeKB
        self.cpuSeconds = cpuSeconds
    }

    public init(_ result: WebKitCompileResult) {
        self.init(
            file: result.filePath, webkitVersion: result.webkitVersion, bytes: result.bytes, seconds: result.seconds,
            peakRSSKB: result.peakRSSKB, rssBeforeKB: result.rssBeforeKB, cpuSeconds: result.cpuSeconds)
    }

    /// The keys, in the order they are written.
    enum Key: String {
        case file, webkitVersion, bytes, seconds, peakRSSKB, rssBeforeKB, cpuSeconds
    }

    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                (Key.file.rawValue, .string(file)), (Key.webkitVersion.rawValue, .string(webkitVersion)),
                (Key.bytes.rawValue, .number(Double(bytes))), (Key.seconds.rawValue, .number(seconds)),
                (Key.peakRSSKB.rawValue, .number(Double(peakRSSKB))),
                (Key.rssBeforeKB.rawValue, .number(Double(rssBeforeKB))),
                (Key.cpuSeconds.rawValue, .number(cpuSeconds)),
            ]))
    }

    /// One line: the object and a newline.
    public var jsonLine: [UInt8] { JSONWriter.bytes(jsonValue) + [UInt8(ascii: "\n")] }

    /// Reads what `jsonLine` wrote; an error names the key that is missing or of the wrong type.
    public init(json bytes: [UInt8]) throws {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw WebKitCompileReportError("not JSON: \(error)")
        }
        guard let o = value.objectValue else { throw WebKitCompileReportError("not a JSON object") }
        func string(_ key: Key) throws -> String {
            guard let s = o[key.rawValue]?.stringValue else { throw WebKitCompileReportError.field(key, "a string") }
            return s
        }
        func number(_ key: Key) throws -> Double {
            guard let n = o[key.rawValue]?.numberValue else { throw WebKitCompileReportError.field(key, "a number") }
            return n
        }
        func integer(_ key: Key) throws -> Int {
            let n = try number(key)
            guard let i = Int(exactly: n) else { throw WebKitCompileReportError.field(key, "an integer") }
            return i
        }
        self.init(
            file: try string(.file), webkitVersion: try string(.webkitVersion), bytes: try integer(.bytes),
            seconds: try number(.seconds), peakRSSKB: try integer(.peakRSSKB), rssBeforeKB: try integer(.rssBeforeKB),
            cpuSeconds: try number(.cpuSeconds))
    }
}

/// A `compile --format json` output that is not a WebKitCompileReport.
public struct WebKitCompileReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = "WebKit compile report: " + description }

    static func field(_ key: WebKitCompileReport.Key, _ kind: String) -> WebKitCompileReportError {
        WebKitCompileReportError("\"\(key.rawValue)\" is missing or not \(kind)")
    }
}
