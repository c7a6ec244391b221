// WebKit's own content-rule-list compiler (WebKitGTK's WebKitUserContentFilterStore), reached at run time.
//
// The library is dlopen'ed when first used, so radarblock builds and runs without WebKitGTK; only
// `compile --engine webkit` and `build --verify-webkit` need it, and they get a clear error naming the
// missing library. Facts this relies on (WebKitGTK 2.50.6, checked by the tests):
// * the store compiles inside the calling process (a work-queue thread of the "UI process"), no helper
//   process and no display: neither gtk_init nor a DISPLAY is needed;
// * the completion callback is dispatched on the default GMainContext, so we run a GMainLoop on it until
//   the callback (or our deadline) fires;
// * every compile error arrives as WEBKIT_USER_CONTENT_FILTER_ERROR_INVALID_SOURCE whose message is
//   WebKit's ContentExtensionError message ("Invalid or unsupported regular expression.", ...); for
//   regex errors WebKit also writes "Error while parsing <pattern>: <status>" to fd 2, which we capture
//   as `detail` instead of letting it leak onto the terminal;
// * the compiled list is written to `<store>/ContentRuleList-<encodeForFileName(identifier)>`
//   (APIContentRuleListStore.cpp).

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A compiled list in a WebKit store directory.
public struct WebKitCompileResult: Sendable, Equatable {
    public var identifier: String
    /// The store directory (absolute).
    public var storePath: String
    /// `<storePath>/ContentRuleList-<encoded identifier>`.
    public var filePath: String
    /// Size of WebKit's file.
    public var bytes: Int
    /// Wall time from the save call to its completion callback (WebKit's parse + compile + file write).
    public var seconds: Double
    /// Peak RSS of this process before the save and after it (VmHWM high-water marks, KiB): WebKit
    /// compiles in-process, so the difference is what compiling cost on top of what was resident.
    public var rssBeforeKB: Int
    public var peakRSSKB: Int
    /// CPU time this process spent from the save call to its callback (user + system, every thread): WebKit's
    /// compile thread, as the UI thread only waits. Steadier than `seconds` on a loaded machine.
    public var cpuSeconds: Double
    /// e.g. "2.50.6".
    public var webkitVersion: String
}

/// What WebKit says about a rule list (for `build --verify-webkit`).
public struct WebKitVerification: Sendable, Equatable {
    /// True when WebKit compiled the list.
    public var accepted: Bool
    /// WebKit's error message when it rejected the list (e.g. "Invalid or unsupported regular expression.").
    public var message: String?
    /// What WebKit printed to stderr while compiling (e.g. "Error while parsing a(: ..."), if anything.
    public var detail: String?
    public var webkitVersion: String
    public var seconds: Double
    /// Size of WebKit's compiled file when accepted.
    public var bytes: Int?
}

public enum WebKitBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library (or one it needs) could not be loaded.
    case libraryUnavailable(library: String, reason: String)
    case missingSymbol(library: String, symbol: String)
    /// WebKit refused the list; `message` is WebKit's own (GError message).
    case rejected(message: String, detail: String?)
    case timedOut(seconds: Double)
    /// The store directory or WebKit's output file is not usable.
    case store(String)
    /// A figure of the compile could not be measured (the peak memory's /proc/self/status line).
    case measurement(String)

    public var description: String {
        switch self {
        case let .libraryUnavailable(library, reason):
            return "WebKitGTK is not available: cannot load \(library) (\(reason)); install it with "
                + "`apt-get install -y libwebkitgtk-6.0-4` (or libwebkitgtk-6.0-dev), or use --engine radarblock"
        case let .missingSymbol(library, symbol):
            return "\(library) has no \(symbol): this WebKitGTK is too old or not the 6.0 API"
        case let .rejected(message, detail):
            return "WebKit rejected the rule list: \(message)" + (detail.map { " (WebKit: \($0))" } ?? "")
        case let .timedOut(seconds):
            return "WebKit did not finish compiling within \(String(format: "%g", seconds)) s"
        case let .store(message):
            return message
        case let .measurement(message):
            return "cannot measure WebKit's compile: \(message)"
        }
    }
}

/// Compiles rule lists with WebKit's compiler. Calls are serialized process-wide (WebKit's store and the
/// default main context are shared), and must come from one thread at a time; any thread will do.
public struct WebKitContentRuleCompiler: Sendable {
    public static let defaultLibrary = "libwebkitgtk-6.0.so.4"

    public let libraryName: String
    /// Deadline for one compile (WebKit's compile of 150,000 rules takes tens of seconds).
    public var timeout: Double

    /// Loads the library now (once per process and name), so a missing WebKitGTK is reported here.
    public init(libraryName: String = WebKitContentRuleCompiler.defaultLibrary, timeout: Double = 900) throws {
        self.libraryName = libraryName
        self.timeout = timeout
        _ = try WebKitLibrary.load(libraryName)
    }

    /// The WebKitGTK version, e.g. "2.50.6".
    public var webkitVersion: String {
        (try? WebKitLibrary.load(libraryName).version) ?? "unknown"
    }

    /// Compiles `rulesJSON` (passed to WebKit untouched) into the store at `storePath` (created if
    /// missing) under `identifier`. Throws `.rejected` with WebKit's message if WebKit refuses the list.
    public func compile(rulesJSON: [UInt8], identifier: String, storePath: String) throws -> WebKitCompileResult {
        let lib = try WebKitLibrary.load(libraryName)
        let store = try Self.prepareStore(storePath)
        let outcome = try lib.save(rulesJSON, identifier: identifier, storePath: store, timeout: timeout)
        if let message = outcome.errorMessage {
            throw WebKitBridgeError.rejected(message: message, detail: outcome.detail)
        }
        let file = store + "/" + WebKitFileName.encode(identifier)
        var st = stat()
        guard stat(file, &st) == 0 else {
            throw WebKitBridgeError.store("WebKit reported success but \(file) does not exist")
        }
        return WebKitCompileResult(
            identifier: identifier, storePath: store, filePath: file, bytes: Int(st.st_size),
            seconds: outcome.seconds, rssBeforeKB: outcome.rssBeforeKB,
            peakRSSKB: outcome.peakRSSKB, cpuSeconds: outcome.cpuSeconds, webkitVersion: lib.version)
    }

    /// Asks WebKit whether it accepts `rulesJSON`: compiles it into a temporary store that is deleted
    /// afterwards. Throws only when WebKit cannot be asked (library missing, timeout, store problems).
    public func verify(rulesJSON: [UInt8]) throws -> WebKitVerification {
        let lib = try WebKitLibrary.load(libraryName)
        var template = Array((NSTemporaryDirectory() + "/radarblock-wkverify-XXXXXX").utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw WebKitBridgeError.store("cannot create a temporary WebKit store: \(String(cString: strerror(errno)))")
        }
        let store = String(cString: dir)
        defer { try? FileManager.default.removeItem(atPath: store) }
        let outcome = try lib.save(rulesJSON, identifier: "radarblock-verify", storePath: store, timeout: timeout)
        if let message = outcome.errorMessage {
            return WebKitVerification(
                accepted: false, message: message, detail: outcome.detail,
                webkitVersion: lib.version, seconds: outcome.seconds, bytes: nil)
        }
        var st = stat()
        let file = store + "/" + WebKitFileName.encode("radarblock-verify")
        let bytes = stat(file, &st) == 0 ? Int(st.st_size) : nil
        return WebKitVerification(
            accepted: true, message: nil, detail: outcome.detail,
            webkitVersion: lib.version, seconds: outcome.seconds, bytes: bytes)
    }

    static func prepareStore(_ path: String) throws -> String {
        guard !path.isEmpty, path != "-" else {
            throw WebKitBridgeError.store("a WebKit store needs a directory, not \"\(path)\"")
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw WebKitBridgeError.store(
                    "\(path): exists and is not a directory "
                        + "(WebKit writes ContentRuleList-<identifier> inside a store directory)"
                )
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
            } catch {
                throw WebKitBridgeError.store(
                    "\(path): cannot create the store directory: \(error.localizedDescription)")
            }
        }
        guard access(absolute, W_OK) == 0 else {
            throw WebKitBridgeError.store("\(path): store directory is not writable")
        }
        return absolute
    }
}

// MARK: - The C API, resolved with dlsym

private typealias GPointer = UnsafeMutableRawPointer
private typealias GAsyncReadyCallback = @convention(c) (GPointer?, GPointer?, GPointer?) -> Void
private typealias GSourceFunc = @convention(c) (GPointer?) -> Int32

/// The outcome of one save.
struct SaveOutcome {
    var errorMessage: String?
    var detail: String?
    var seconds: Double
    var rssBeforeKB: Int
    var peakRSSKB: Int
    var cpuSeconds: Double
}

/// State shared with the C callbacks through their user_data pointer.
private final class SaveState {
    let lib: WebKitLibrary
    let loop: GPointer
    var finished = false
    var timedOut = false
    var end: Double = 0
    var filter: GPointer?
    var errorMessage: String?
    var errorCode: Int32 = 0

    init(lib: WebKitLibrary, loop: GPointer) {
        self.lib = lib
        self.loop = loop
    }
}

final class WebKitLibrary: @unchecked Sendable {
    // GLib / GObject
    fileprivate let g_bytes_new: @convention(c) (UnsafeRawPointer?, Int) -> GPointer?
    fileprivate let g_bytes_unref: @convention(c) (GPointer?) -> Void
    fileprivate let g_main_loop_new: @convention(c) (GPointer?, Int32) -> GPointer?
    fileprivate let g_main_loop_run: @convention(c) (GPointer?) -> Void
    fileprivate let g_main_loop_quit: @convention(c) (GPointer?) -> Void
    fileprivate let g_main_loop_unref: @convention(c) (GPointer?) -> Void
    fileprivate let g_timeout_add: @convention(c) (UInt32, GSourceFunc?, GPointer?) -> UInt32
    fileprivate let g_source_remove: @convention(c) (UInt32) -> Int32
    fileprivate let g_error_free: @convention(c) (GPointer?) -> Void
    fileprivate let g_object_unref: @convention(c) (GPointer?) -> Void
    // WebKit
    fileprivate let store_new: @convention(c) (UnsafePointer<CChar>?) -> GPointer?
    fileprivate let store_save:
        @convention(c) (GPointer?, UnsafePointer<CChar>?, GPointer?, GPointer?, GAsyncReadyCallback?, GPointer?) -> Void
    fileprivate let store_save_finish:
        @convention(c) (GPointer?, GPointer?, UnsafeMutablePointer<GPointer?>?) -> GPointer?
    fileprivate let filter_unref: @convention(c) (GPointer?) -> Void
    let version: String

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: WebKitLibrary] = [:]

    /// Loads (once) and resolves every function; WebKit is never unloaded.
    static func load(_ name: String) throws -> WebKitLibrary {
        lock.lock()
        defer { lock.unlock() }
        if let lib = loaded[name] { return lib }
        let lib = try WebKitLibrary(name)
        loaded[name] = lib
        return lib
    }

    private init(_ name: String) throws {
        _ = dlerror()
        guard let webkit = dlopen(name, RTLD_NOW | RTLD_GLOBAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw WebKitBridgeError.libraryUnavailable(library: name, reason: reason)
        }
        // WebKitGTK links GLib, GObject and GIO itself; open them by name anyway so a broken install
        // is reported as the library that is missing.
        var handles: [(String, UnsafeMutableRawPointer)] = [(name, webkit)]
        for dependency in ["libglib-2.0.so.0", "libgobject-2.0.so.0", "libgio-2.0.so.0"] {
            guard let h = dlopen(dependency, RTLD_NOW | RTLD_GLOBAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
                throw WebKitBridgeError.libraryUnavailable(library: dependency, reason: reason)
            }
            handles.append((dependency, h))
        }
        func sym<T>(_ symbol: String, _: T.Type) throws -> T {
            for (_, h) in handles {
                if let p = dlsym(h, symbol) { return unsafeBitCast(p, to: T.self) }
            }
            throw WebKitBridgeError.missingSymbol(library: name, symbol: symbol)
        }
        g_bytes_new = try sym("g_bytes_new", (@convention(c) (UnsafeRawPointer?, Int) -> GPointer?).self)
        g_bytes_unref = try sym("g_bytes_unref", (@convention(c) (GPointer?) -> Void).self)
        g_main_loop_new = try sym("g_main_loop_new", (@convention(c) (GPointer?, Int32) -> GPointer?).self)
        g_main_loop_run = try sym("g_main_loop_run", (@convention(c) (GPointer?) -> Void).self)
        g_main_loop_quit = try sym("g_main_loop_quit", (@convention(c) (GPointer?) -> Void).self)
        g_main_loop_unref = try sym("g_main_loop_unref", (@convention(c) (GPointer?) -> Void).self)
        g_timeout_add = try sym("g_timeout_add", (@convention(c) (UInt32, GSourceFunc?, GPointer?) -> UInt32).self)
        g_source_remove = try sym("g_source_remove", (@convention(c) (UInt32) -> Int32).self)
        g_error_free = try sym("g_error_free", (@convention(c) (GPointer?) -> Void).self)
        g_object_unref = try sym("g_object_unref", (@convention(c) (GPointer?) -> Void).self)
        store_new = try sym(
            "webkit_user_content_filter_store_new", (@convention(c) (UnsafePointer<CChar>?) -> GPointer?).self)
        store_save = try sym(
            "webkit_user_content_filter_store_save",
            (@convention(c) (GPointer?, UnsafePointer<CChar>?, GPointer?, GPointer?, GAsyncReadyCallback?, GPointer?) ->
                Void).self)
        store_save_finish = try sym(
            "webkit_user_content_filter_store_save_finish",
            (@convention(c) (GPointer?, GPointer?, UnsafeMutablePointer<GPointer?>?) -> GPointer?).self)
        filter_unref = try sym("webkit_user_content_filter_unref", (@convention(c) (GPointer?) -> Void).self)
        let major = try sym("webkit_get_major_version", (@convention(c) () -> UInt32).self)
        let minor = try sym("webkit_get_minor_version", (@convention(c) () -> UInt32).self)
        let micro = try sym("webkit_get_micro_version", (@convention(c) () -> UInt32).self)
        version = "\(major()).\(minor()).\(micro())"
    }

    /// The high-water mark of this process's own address space (VmHWM). Not getrusage's ru_maxrss: Linux carries
    /// that one over fork and exec, so a child started by a large process (`build --previous` measures each
    /// list in one) would report its parent's size and never what WebKit needed.
    /// No fallback: a figure from elsewhere would be a wrong figure, so a status that cannot be read is an error.
    static func peakRSSKB() throws -> Int {
        let path = "/proc/self/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw WebKitBridgeError.measurement("\(path) cannot be read, so the peak memory is unknown")
        }
        return try highWaterMarkKB(status: status, path: path)
    }

    /// The VmHWM figure (KiB) of a /proc/PID/status text.
    static func highWaterMarkKB(status: String, path: String) throws -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else {
            throw WebKitBridgeError.measurement("\(path) has no VmHWM line, so the peak memory is unknown")
        }
        let fields = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 2, fields[1] == "kB", let kb = Int(fields[0]) else {
            throw WebKitBridgeError.measurement("\(path): \"\(line)\" is not \"VmHWM: <n> kB\"")
        }
        return kb
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One webkit_user_content_filter_store_save, driven to completion on the default main context.
    func save(_ source: [UInt8], identifier: String, storePath: String, timeout: Double) throws -> SaveOutcome {
        WebKitLibrary.saveLock.lock()
        defer { WebKitLibrary.saveLock.unlock() }
        let rssBefore = try WebKitLibrary.peakRSSKB()
        guard let store = storePath.withCString({ store_new($0) }) else {
            throw WebKitBridgeError.store("webkit_user_content_filter_store_new(\(storePath)) failed")
        }
        guard let loop = g_main_loop_new(nil, 0) else {
            g_object_unref(store)
            throw WebKitBridgeError.store("g_main_loop_new failed")
        }
        // g_bytes_new copies, so the Swift array's storage need not outlive the call.
        let bytes = source.withUnsafeBytes { g_bytes_new($0.baseAddress, $0.count) }
        let state = SaveState(lib: self, loop: loop)
        let context = Unmanaged.passRetained(state)

        let onSaved: GAsyncReadyCallback = { sourceObject, result, userData in
            let state = Unmanaged<SaveState>.fromOpaque(userData!).takeUnretainedValue()
            state.end = WebKitLibrary.now()
            var error: GPointer? = nil
            state.filter = state.lib.store_save_finish(sourceObject, result, &error)
            if let error {
                // GError { GQuark domain; gint code; gchar *message; }
                state.errorCode = error.load(fromByteOffset: 4, as: Int32.self)
                if let message = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self) {
                    state.errorMessage = String(cString: message)
                } else {
                    state.errorMessage = "unknown WebKit error (code \(state.errorCode))"
                }
                state.lib.g_error_free(error)
            }
            state.finished = true
            state.lib.g_main_loop_quit(state.loop)
        }
        let onTimeout: GSourceFunc = { userData in
            let state = Unmanaged<SaveState>.fromOpaque(userData!).takeUnretainedValue()
            state.timedOut = true
            state.lib.g_main_loop_quit(state.loop)
            return 0 // G_SOURCE_REMOVE
        }

        let capture = StderrCapture()
        let cpuBefore = WebKitLibrary.cpuSeconds()
        let start = WebKitLibrary.now()
        identifier.withCString { store_save(store, $0, bytes, nil, onSaved, context.toOpaque()) }
        var timer: UInt32 = 0
        if !state.finished {
            timer = g_timeout_add(UInt32(min(timeout, 3_000_000) * 1000), onTimeout, context.toOpaque())
            g_main_loop_run(loop)
        }
        if !state.timedOut, timer != 0 { _ = g_source_remove(timer) }
        let detail = capture.finish()
        if state.timedOut && !state.finished {
            // WebKit may still call back later with our state, loop and store: leave them all alive
            // (a small leak) rather than risk a use after free.
            throw WebKitBridgeError.timedOut(seconds: timeout)
        }
        context.release()
        g_bytes_unref(bytes)
        g_main_loop_unref(loop)
        g_object_unref(store)
        if let filter = state.filter { filter_unref(filter) }
        return SaveOutcome(
            errorMessage: state.errorMessage, detail: detail.isEmpty ? nil : detail,
            seconds: state.end - start, rssBeforeKB: rssBefore, peakRSSKB: try WebKitLibrary.peakRSSKB(),
            cpuSeconds: WebKitLibrary.cpuSeconds() - cpuBefore)
    }

    private static let saveLock = NSLock()

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Redirects fd 2 into a temporary file while WebKit compiles (it prints regex parse details there
/// from its compile thread), then restores it and returns what was written.
private struct StderrCapture {
    private var saved: Int32 = -1
    private var file: UnsafeMutablePointer<FILE>?

    init() {
        fflush(stderr)
        guard let f = tmpfile() else { return }
        let dup = Glibc.dup(2)
        guard dup >= 0, dup2(fileno(f), 2) >= 0 else {
            if dup >= 0 { close(dup) }
            fclose(f)
            return
        }
        saved = dup
        file = f
    }

    func finish() -> String {
        guard let file, saved >= 0 else { return "" }
        fflush(stderr)
        dup2(saved, 2)
        close(saved)
        var text: [UInt8] = []
        rewind(file)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            text.append(contentsOf: chunk[0..<n])
            if text.count > 1 << 16 { break }
        }
        fclose(file)
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
