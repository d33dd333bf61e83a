/// The module's one escape hatch from Sendable checking.
///
/// ``TLSClientContext`` holds an `OpaquePointer` to an OpenSSL `SSL_CTX`, which the compiler
/// cannot see is thread-safe. It is, as used here:
/// - the pointer is a `let`, set once in `init` and freed only in `deinit`, when no thread can
///   hold a reference any more;
/// - the context is fully configured inside `init`, and no code calls a setter on it afterwards
///   (the type exposes no method that changes it);
/// - OpenSSL 3's openssl-threads(7): "Objects are thread-safe as long as the API's being invoked
///   don't modify the object", and an `SSL_CTX` used as the factory of per-connection `SSL`
///   objects (`SSL_new`) must not be modified once it has been used; reference counts and the
///   trust store's lookup caches are updated under OpenSSL's own locks.
/// Each `SSL` (``TLSConnection``) stays on the one thread of its delivery.
extension TLSClientContext: @unchecked Sendable {}
