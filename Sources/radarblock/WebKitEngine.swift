// `radarblock compile --engine webkit`: the same list compiled by WebKit's own compiler
// (WebKitGTK's WebKitUserContentFilterStore, loaded at run time), for comparison and benchmarks.
// Also where WebKitBridge is wired into Pipeline: `build --verify-webkit` and `install` get WebKit's compiler
// from here, so the library does not link the WebKitGTK loader.

import FileIO
import Pipeline
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

    /// `build --verify-webkit`: Pipeline's verify step, served by WebKitGTK.
    static let verifier = WebKitVerifier {
        let compiler = try WebKitContentRuleCompiler()
        return WebKitVerifier.Loaded(version: compiler.webkitVersion) { json in
            let v = try compiler.verify(rulesJSON: json)
            return WebKitVerdict(accepted: v.accepted, message: v.message, detail: v.detail, seconds: v.seconds, bytes: v.bytes)
        }
    }

    static func fileName(_ identifier: String) -> String { WebKitContentRuleCompiler.fileName(forIdentifier: identifier) }

    /// `install`: WebKit's store, its compiler loaded on first use (a re-install that compiles nothing never loads WebKit).
    static func store() -> WebKitStore {
        nonisolated(unsafe) var compiler: WebKitContentRuleCompiler? = nil
        return WebKitStore(compile: { json, identifier, store in
            if compiler == nil { compiler = try WebKitContentRuleCompiler() }
            let r = try compiler!.compile(rulesJSON: json, identifier: identifier, storePath: store)
            return (r.bytes, r.seconds)
        }, fileName: fileName)
    }
}
