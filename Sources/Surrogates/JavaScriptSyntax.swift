// A real JavaScript parse for surrogate bodies: JavaScriptCore's own parser (JSCheckScriptSyntax), the
// engine WebKit runs the bundle with, loaded at run time from WebKitGTK's libjavascriptcoregtk so radarblock
// neither links it nor builds differently without it. A bracket scanner cannot see `var = ;`, `await 1;` in
// a plain function or a duplicate `const`, and one such body would make the whole bundle fail to parse.
//
// Without the library there is no check that cannot pass a syntax error, so surrogates cannot be built:
// `JavaScriptSyntaxError.unavailable` says which package to install.

import Foundation
#if canImport(Glibc)
    import Glibc
#endif

public struct JavaScriptSyntaxFailure: Sendable, Equatable {
    /// 1-based line within the checked source.
    public var line: Int
    public var message: String
}

public enum JavaScriptSyntaxError: Error, Sendable, CustomStringConvertible {
    case unavailable(String)
    public var description: String {
        switch self {
        case .unavailable(let reason):
            return
                "cannot check surrogate scripts for syntax errors: JavaScriptCore is not available (\(reason)); "
                + "install Debian's libjavascriptcoregtk-6.0-1"
        }
    }
}

public enum JavaScriptSyntax {
    public static let libraryName = "libjavascriptcoregtk-6.0.so.1"

    /// nil when `source` parses as a classic script, else the first syntax error.
    public static func check(_ source: String) throws -> JavaScriptSyntaxFailure? {
        let jsc = try JSC.shared()
        return jsc.lock.withLock { JSCThread.shared.run { jsc.check(source) } }
    }
}

private typealias Ref = OpaquePointer

/// JavaScriptCore is only ever entered from this one thread. JSC binds its VM and its run-loop timers to
/// the thread that first enters it; entered from the main thread, it keeps WebKitGTK from delivering its
/// content-rule-list callbacks there afterwards (measured: WebKitUserContentFilterStore then never finishes
/// compiling in the same process), so a process that checks surrogates and then compiles with WebKit hung.
private final class JSCThread: @unchecked Sendable {
    static let shared = JSCThread()
    private let work = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var job: (() -> Void)?

    private init() {
        let thread = Thread { [unowned self] in
            while true {
                self.work.wait()
                self.job?()
                self.job = nil
                self.done.signal()
            }
        }
        thread.name = "radarblock.javascriptcore"
        thread.stackSize = 8 << 20 // JSC's parser recurses on nesting; the default secondary stack is 512 KB
        thread.start()
    }

    /// Runs `body` on the JSC thread and waits for it; callers serialise (JavaScriptSyntax holds `lock`).
    func run<T>(_ body: @escaping () -> T) -> T {
        var result: T?
        job = { result = body() }
        work.signal()
        done.wait()
        return result!
    }
}

private final class JSC: @unchecked Sendable {
    let lock = NSLock()
    let contextCreate: @convention(c) (Ref?) -> Ref?
    let contextRelease: @convention(c) (Ref?) -> Void
    let stringCreate: @convention(c) (UnsafePointer<UInt16>?, Int) -> Ref?
    let stringCreateUTF8: @convention(c) (UnsafePointer<CChar>?) -> Ref?
    let stringRelease: @convention(c) (Ref?) -> Void
    let stringMaxUTF8: @convention(c) (Ref?) -> Int
    let stringUTF8: @convention(c) (Ref?, UnsafeMutablePointer<CChar>?, Int) -> Int
    let checkSyntax: @convention(c) (Ref?, Ref?, Ref?, Int32, UnsafeMutablePointer<Ref?>?) -> Bool
    let valueToString: @convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?
    let valueToObject: @convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?
    let objectGetProperty: @convention(c) (Ref?, Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?
    let valueToNumber: @convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Double

    private static let loading = NSLock()
    nonisolated(unsafe) private static var loaded: Result<JSC, JavaScriptSyntaxError>?

    static func shared() throws -> JSC {
        try loading.withLock {
            if loaded == nil { loaded = Result { try JSC() }.mapError { $0 as! JavaScriptSyntaxError } }
            return try loaded!.get()
        }
    }

    private init() throws {
        _ = dlerror()
        guard let handle = dlopen(JavaScriptSyntax.libraryName, RTLD_NOW | RTLD_LOCAL) else {
            throw JavaScriptSyntaxError.unavailable(dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        func sym<T>(_ name: String, _: T.Type) throws -> T {
            guard let p = dlsym(handle, name) else {
                throw JavaScriptSyntaxError.unavailable("\(JavaScriptSyntax.libraryName) has no \(name)")
            }
            return unsafeBitCast(p, to: T.self)
        }
        contextCreate = try sym("JSGlobalContextCreate", (@convention(c) (Ref?) -> Ref?).self)
        contextRelease = try sym("JSGlobalContextRelease", (@convention(c) (Ref?) -> Void).self)
        stringCreate = try sym(
            "JSStringCreateWithCharacters", (@convention(c) (UnsafePointer<UInt16>?, Int) -> Ref?).self)
        stringCreateUTF8 = try sym(
            "JSStringCreateWithUTF8CString", (@convention(c) (UnsafePointer<CChar>?) -> Ref?).self)
        stringRelease = try sym("JSStringRelease", (@convention(c) (Ref?) -> Void).self)
        stringMaxUTF8 = try sym("JSStringGetMaximumUTF8CStringSize", (@convention(c) (Ref?) -> Int).self)
        stringUTF8 = try sym(
            "JSStringGetUTF8CString", (@convention(c) (Ref?, UnsafeMutablePointer<CChar>?, Int) -> Int).self)
        checkSyntax = try sym(
            "JSCheckScriptSyntax", (@convention(c) (Ref?, Ref?, Ref?, Int32, UnsafeMutablePointer<Ref?>?) -> Bool).self)
        valueToString = try sym(
            "JSValueToStringCopy", (@convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?).self)
        valueToObject = try sym(
            "JSValueToObject", (@convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?).self)
        objectGetProperty = try sym(
            "JSObjectGetProperty", (@convention(c) (Ref?, Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Ref?).self)
        valueToNumber = try sym(
            "JSValueToNumber", (@convention(c) (Ref?, Ref?, UnsafeMutablePointer<Ref?>?) -> Double).self)
    }

    /// Called with `lock` held.
    func check(_ source: String) -> JavaScriptSyntaxFailure? {
        let context = contextCreate(nil)
        defer { contextRelease(context) }
        // UTF-16 with an explicit length: a NUL in a body must not cut the checked text short.
        let units = Array(source.utf16)
        let script = units.withUnsafeBufferPointer { stringCreate($0.baseAddress, $0.count) }
        defer { stringRelease(script) }
        var exception: Ref? = nil
        if checkSyntax(context, script, nil, 1, &exception) { return nil }
        return JavaScriptSyntaxFailure(
            line: line(of: exception, in: context), message: text(of: exception, in: context))
    }

    private func text(of value: Ref?, in context: Ref?) -> String {
        guard let value, let s = valueToString(context, value, nil) else { return "SyntaxError" }
        defer { stringRelease(s) }
        var buffer = [CChar](repeating: 0, count: stringMaxUTF8(s) + 1)
        _ = stringUTF8(s, &buffer, buffer.count)
        return String(cString: buffer)
    }

    private func line(of value: Ref?, in context: Ref?) -> Int {
        guard let value, let object = valueToObject(context, value, nil) else { return 1 }
        let name = stringCreateUTF8("line")
        defer { stringRelease(name) }
        guard let v = objectGetProperty(context, object, name, nil) else { return 1 }
        let n = valueToNumber(context, v, nil)
        return n.isFinite && n >= 1 ? Int(n) : 1
    }
}
