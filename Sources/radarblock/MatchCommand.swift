// radarblock match: what WebKit's content blocker reports for loads, from rule-list JSON or .rbc files.

import ContentRules
import FileIO
import Foundation
import RuleCompiler
import RuleEngine
import StrictJSON

enum MatchCommand: Command {
    static let name = "match"
    static let summary = "answer what WebKit does with loads, from rule lists (.json or .rbc)"
    static var help: String {
        """
        usage: radarblock match LIST(.json|.rbc)... --requests FILE.jsonl
               radarblock match LIST(.json|.rbc)... --url URL --top-url URL [--frame-url URL] [--type TYPE]
                                                    [--method METHOD] [--load-context top-frame|child-frame] [--json]

        Reports the actions WebKit's content-extension backend gives a load, in WebKit's order and
        de-duplication, concatenated over the lists in the order given. JSON lists are validated and
        compiled in memory exactly like `radarblock compile` does; .rbc files are checked and loaded.

        --requests FILE   one JSON request per line ("-" = stdin):
                            {"url": "...", "topURL": "...", "frameURL": "..." (default topURL),
                             "resourceType": "...", "loadContext": "top-frame"|"child-frame" (optional),
                             "requestMethod": "get"|... (optional)}
                          Answers, one line each, in the same order:
                            {"actions":[{"type":"block"},...],"stylesheet":"..."}
                          "stylesheet" (only when non-empty) is the global display:none stylesheet of
                          every list that saw no ignore-previous-rules for the load, one per line.
                          A line that cannot be answered gets {"error":"line N: ..."}; the run goes on.
        --url URL         explain one load: the rules that decided it, then the answer line.
        --top-url URL     the main document's URL (required with --url)
        --frame-url URL   the URL of the frame issuing the load (default: the top URL)
        --type TYPE       resource type (default: other)
        --method METHOD   the initiating document's request method (default: none)
        --load-context C  top-frame or child-frame (default: top-frame when the frame URL is the top
                          URL, else child-frame)
        --json            with --url: print only the answer line
        \(TargetHelp.option("JSON lists are read as that engine's parser reads them (keys it does not know are ignored, as it ignores them); an .rbc file keeps the target it was compiled for", indent: ""))

        Matching follows WebKit: URLs are canonicalized like WebKit's URL parser (lowercase scheme and
        host, IDN to punycode, default port removed, "/" for an empty path, dot segments, percent-
        encoding; the fragment is kept); invalid URLs and data: URLs get no actions at all. A load is
        third-party unless its host is the main document's registrable domain (public suffix list) or
        a subdomain of it. Every load is evaluated with the URLs it was given, as WebKit's backend does.
        Combinations a browser never produces are answered as given, not rewritten: a browser's
        top-document load always has topURL = url and loadContext top-frame (its main document is
        itself), and a popup's frame is about:blank; a top-document request with another topURL is an
        artificial load (WebKit's own tests use such loads).

        Resource types (request name -> the WebKit type it is matched as):
        \(ResourceTypeMapping.helpTable)
        Exit status: 0 answered (even if some lines had errors), 1 a list could not be loaded, 2 usage.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments.parse(arguments, options: [
            OptionSpec("--requests"), OptionSpec("--url"), OptionSpec("--top-url"), OptionSpec("--frame-url"),
            OptionSpec("--type"), OptionSpec("--method"), OptionSpec("--load-context"), OptionSpec("--json", value: false), .target,
        ], positionals: 1...64)
        let target = try args.target()
        let requests = args.value("--requests")
        let url = args.value("--url")
        if (requests == nil) == (url == nil) { throw UsageError("give either --requests FILE or --url URL --top-url URL") }
        if requests != nil {
            for o in ["--top-url", "--frame-url", "--type", "--method", "--load-context", "--json"] where args.value(o) != nil || args.has(o) {
                throw UsageError("\(o) goes with --url, not --requests")
            }
        }
        let engine = RuleEngine(lists: try args.positionals.map { try loadList($0, target: target) })

        if let requests {
            return try answer(requestsFrom: requests, engine: engine)
        }
        guard let top = args.value("--top-url") else { throw UsageError("--url needs --top-url") }
        // A bad option value is a usage error (exit 2), unlike a bad request line in a --requests file.
        if let type = args.value("--type"), ResourceTypeMapping.resourceType(type, mainFrameContext: true) == nil {
            throw UsageError("--type: unknown resource type \"\(type)\" (see the list in --help)")
        }
        if let context = args.value("--load-context"), !["top-frame", "child-frame"].contains(context) {
            throw UsageError("--load-context must be top-frame or child-frame, not \"\(context)\"")
        }
        let request = MatchRequest(url: url!, topURL: top, frameURL: args.value("--frame-url"), resourceType: args.value("--type") ?? "other",
                                   loadContext: args.value("--load-context"), requestMethod: args.value("--method"))
        do {
            if args.has("--json") {
                var out: [UInt8] = []
                try engine.match(request).writeJSONLine(into: &out)
                FileHandle.standardOutput.write(Data(out))
            } else {
                print(try Explain.report(engine: engine, request: request), terminator: "")
            }
        } catch let e as RequestError {
            throw InputError(e.message)
        }
        return ExitCode.success
    }

    /// Loads a rule list: .rbc (or anything with the .rbc magic) is checked and loaded; otherwise it is JSON.
    static func loadList(_ path: String, target: EngineProfile = .default) throws -> LoadedRuleList {
        let bytes = try FileIO.read(path)
        if path.hasSuffix(".rbc") || bytes.starts(with: RBCFile.magic) {
            return try LoadedRuleList(RBCFile.load(bytes, path: path))
        }
        do {
            let list = try LoadedRuleList.compiling(json: bytes, options: .init(name: RuleListIdentifier.defaultName(forPath: path),
                                                                                        parser: RuleListParserOptions(target: target)))
            if list.compiled.skippedRuleCount > 0 {
                Console.warning("\(path): \(list.compiled.skippedRuleCount) rule(s) skipped as WebKit skips them (run `radarblock validate` for details)")
            }
            return list
        } catch let e as RuleListValidationError {
            throw InputError("\(path): \(e.description)")
        }
    }

    /// Streams JSONL requests to JSONL answers with buffered reads and writes.
    static func answer(requestsFrom path: String, engine: RuleEngine) throws -> Int32 {
        let fd: Int32
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY)
            if fd < 0 { throw InputError("\(path): \(String(cString: strerror(errno)))") }
        }
        defer { if fd != 0 { close(fd) } }
        var output = BufferedOutput(fd: 1)
        var batch = MatchBatch(engine: engine)
        var reader = LineReader(fd: fd)
        while let line = try reader.next(path: path) {
            batch.answer(line: line.bytes, lineNumber: line.number, tooLong: line.tooLong, into: &output.buffer)
            if output.buffer.count >= 1 << 16, !output.flush() { return ExitCode.success }
        }
        _ = output.flush()
        return ExitCode.success
    }
}

/// Reads lines from a file descriptor in large chunks; a line longer than `maximumLineLength` is
/// reported as too long (and skipped) instead of being held in memory.
struct LineReader {
    let fd: Int32
    var buffer: [UInt8] = []
    var start = 0
    var eof = false
    var number = 0
    static let chunk = 1 << 20
    static let maximumLineLength = 64 << 20

    init(fd: Int32) { self.fd = fd }

    struct Line {
        var bytes: ArraySlice<UInt8>
        var number: Int
        var tooLong: Bool
    }

    mutating func next(path: String) throws -> Line? {
        var skipping = false
        while true {
            let found: Int? = buffer.withUnsafeBytes { raw in
                guard start < raw.count, let p = memchr(raw.baseAddress! + start, 0x0A, raw.count - start) else { return nil }
                return raw.baseAddress!.distance(to: UnsafeRawPointer(p))
            }
            if let nl = found {
                var end = nl
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[start..<end]
                start = nl + 1
                number += 1
                return Line(bytes: line, number: number, tooLong: skipping)
            }
            if eof {
                if start < buffer.count {
                    let line = buffer[start...]
                    start = buffer.count
                    number += 1
                    return Line(bytes: line, number: number, tooLong: skipping)
                }
                if skipping {
                    number += 1
                    return Line(bytes: [], number: number, tooLong: true)
                }
                return nil
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            if buffer.count > LineReader.maximumLineLength {
                skipping = true
                buffer.removeAll(keepingCapacity: true)
            }
            let old = buffer.count
            buffer.reserveCapacity(old + LineReader.chunk)
            buffer.append(contentsOf: repeatElement(0, count: LineReader.chunk))
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, LineReader.chunk) }
            if n < 0 {
                if errno == EINTR { buffer.removeSubrange(old...); continue }
                throw InputError("\(path): \(String(cString: strerror(errno)))")
            }
            buffer.removeSubrange((old + n)...)
            if n == 0 { eof = true }
        }
    }
}

/// Collects output and writes it with write(2); a closed pipe ends the run quietly.
struct BufferedOutput {
    let fd: Int32
    var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 17)
    }

    /// False when the reader went away.
    mutating func flush() -> Bool {
        var offset = 0
        let ok = buffer.withUnsafeBytes { raw -> Bool in
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        buffer.removeAll(keepingCapacity: true)
        return ok
    }
}
