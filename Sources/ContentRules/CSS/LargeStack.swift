// LargeStack: a thread with a stack deep enough for the CSS selector parser's recursion on deeply nested selectors.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a closure on a thread with a 256 MB stack (reserved address space, touched only as deep as used).
enum LargeStack {
    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run<T>(_ body: @escaping () -> T) -> T {
        var result: T?
        let job = Job { result = body() }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 256 << 20)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(job).toOpaque()
        let created = pthread_create(
            &thread, &attributes,
            { raw in
                Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return body() // no thread available: run here
        }
        pthread_join(thread, nil)
        return result!
    }
}
