import Basics

/// The SHA-256 hash function of FIPS 180-4 §6.2, in pure Swift.
///
/// One-shot only: the whole message is hashed in one call. Full 64-byte blocks are read in
/// place from the caller's contiguous storage (a non-contiguous collection is copied into an
/// array once); only the one or two padded tail blocks are built in a small temporary buffer.
package enum SHA256 {
    /// The digest length in bytes.
    package static let digestCount = 32

    /// The block length in bytes (FIPS 180-4 §1), which HMAC needs (RFC 2104 §2).
    package static let blockCount = 64

    /// The 32-byte SHA-256 digest of `bytes`.
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash($0) }
    }

    private static func hash(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var state = State()
        let fullBlocksCount = message.count / blockCount * blockCount
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            var offset = 0
            while offset < fullBlocksCount {
                state.compress(UnsafeRawBufferPointer(rebasing: message[offset..<offset + blockCount]), schedule)
                offset += blockCount
            }
            // FIPS 180-4 §5.1.1: append 0x80, zeros, then the 64-bit big-endian bit length so
            // the total is a multiple of 64 bytes; that takes one tail block, or two when fewer
            // than 9 bytes are left after the message in the first.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * blockCount) { tail in
                tail.initialize(repeating: 0)
                let remainder = message.count - fullBlocksCount
                for index in 0..<remainder {
                    tail[index] = message[fullBlocksCount + index]
                }
                tail[remainder] = 0x80
                let tailCount = remainder + 9 <= blockCount ? blockCount : 2 * blockCount
                let bitLength = UInt64(message.count) &* 8
                for index in 0..<8 {
                    tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))
                }
                let tailBytes = UnsafeRawBufferPointer(tail)
                var tailOffset = 0
                while tailOffset < tailCount {
                    state.compress(UnsafeRawBufferPointer(rebasing: tailBytes[tailOffset..<tailOffset + blockCount]), schedule)
                    tailOffset += blockCount
                }
            }
        }
        return state.digest()
    }

    /// The eight working hash words H0…H7, starting at the initial value of FIPS 180-4 §5.3.3.
    private struct State {
        var h0: UInt32 = 0x6a09_e667
        var h1: UInt32 = 0xbb67_ae85
        var h2: UInt32 = 0x3c6e_f372
        var h3: UInt32 = 0xa54f_f53a
        var h4: UInt32 = 0x510e_527f
        var h5: UInt32 = 0x9b05_688c
        var h6: UInt32 = 0x1f83_d9ab
        var h7: UInt32 = 0x5be0_cd19

        /// Folds one 64-byte block into the state (FIPS 180-4 §6.2.2), using `w` as the
        /// 64-word message schedule scratch space.
        mutating func compress(_ block: UnsafeRawBufferPointer, _ w: UnsafeMutableBufferPointer<UInt32>) {
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 = rotate(w[t - 15], 7) ^ rotate(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotate(w[t - 2], 17) ^ rotate(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
            SHA256.roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let sigma1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ sigma1 &+ choice &+ k[t] &+ w[t]
                    let sigma0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = sigma0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
            h5 &+= f
            h6 &+= g
            h7 &+= h
        }

        /// H0…H7 as 32 big-endian bytes.
        func digest() -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(SHA256.digestCount)
            for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
                bytes.append(UInt8(truncatingIfNeeded: word >> 24))
                bytes.append(UInt8(truncatingIfNeeded: word >> 16))
                bytes.append(UInt8(truncatingIfNeeded: word >> 8))
                bytes.append(UInt8(truncatingIfNeeded: word))
            }
            return bytes
        }

        private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
            (value >> count) | (value << (32 - count))
        }
    }

    /// The 64 round constants K0…K63 of FIPS 180-4 §4.2.2.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension SHA256 {
    /// The digest of `bytes` as 64 lower-case hex digits: the name of content addressed by it.
    package static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        Hex.encode(hash(bytes))
    }
}
