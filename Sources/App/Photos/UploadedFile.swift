import Basics
import Glibc

/// A file a person sent in a form, as the photo pipeline takes it: its size, and how to put its
/// bytes in a file of the pipeline's own. Small ones are in memory; a large one stays where the
/// server spooled the request body as it arrived (``SubmittedForm``), and reaches the pipeline's
/// file without passing through memory.
package struct UploadedFile: Sendable {
    /// Its size in bytes.
    package let count: Int
    private let writer: @Sendable (Int32) throws(UploadedFileError) -> Void

    /// A file whose bytes are in memory.
    package init(bytes: [UInt8]) {
        count = bytes.count
        writer = { descriptor throws(UploadedFileError) in
            guard bytes.withUnsafeBytes({ SystemCall.writeAll($0, to: descriptor) }) else { throw UploadedFileError(errno: errno) }
        }
    }

    /// A file of `count` bytes that `writer` writes to the end of an open descriptor.
    package init(count: Int, writer: @escaping @Sendable (Int32) throws(UploadedFileError) -> Void) {
        self.count = count
        self.writer = writer
    }

    /// Writes the file's bytes to the end of the file open as `descriptor`.
    package func write(to descriptor: Int32) throws(UploadedFileError) {
        try writer(descriptor)
    }
}

/// An upload's bytes could not be written where the pipeline reads them.
package struct UploadedFileError: Error, Sendable {
    package var errno: Int32
}
