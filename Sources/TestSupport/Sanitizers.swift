#if canImport(Glibc)
    import Glibc
#endif

/// Which sanitizer runtime this test process (and so the executables built with it) runs under.
package enum Sanitizers {
    /// True when ThreadSanitizer's runtime is linked in (`swift test --sanitize=thread`): its
    /// entry point is then a symbol of the process.
    package static let isThreadSanitizerActive: Bool = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}
