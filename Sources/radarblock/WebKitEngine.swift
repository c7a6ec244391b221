// `radarblock compile --engine webkit`: the same list compiled by WebKit's own compiler
// (WebKitGTK's WebKitUserContentFilterStore, loaded at run time), for comparison and benchmarks.

import FileIO
import RuleCompiler
import WebKitBridge

enum WebKitEngine {
    /// Compiles `input` into the WebKit store directory `storeDirectory` as `ContentRuleList-<name>`.
    static func compile(input: String, storeDirectory: String, name: String?, dataset: String?) throws -> Int32 {
        if dataset != nil { throw UsageError("--dataset goes with --engine radarblock (WebKit's identifier is --name)") }
        if storeDirectory == "-" { throw UsageError("--engine webkit writes into a store directory: give -o DIR") }
        let identifier = name ?? RuleListIdentifier.defaultName(forPath: input)
        let json = try FileIO.read(input)
        let compiler = try WebKitContentRuleCompiler()
        let result: WebKitCompileResult
        do {
            result = try compiler.compile(rulesJSON: json, identifier: identifier, storePath: storeDirectory)
        } catch let e as WebKitBridgeError {
            if case .rejected = e { throw InputError("\(input): \(e.description)") }
            throw e
        }
        Console.note("\(result.filePath): WebKit \(result.webkitVersion), \(result.bytes) bytes, "
            + "compiled in \(String(format: "%.3f", result.seconds)) s, "
            + "peak RSS \(result.peakRSSKB) KiB (\(result.rssBeforeKB) KiB before compiling)")
        return ExitCode.success
    }
}
