import App
import Glibc
import TestSupport
import Testing

/// Each hash takes tens of milliseconds of CPU (far more under load), so the tests run them on
/// threads of their own through `offPool`: on the cooperative pool they would stall every other
/// suite's in-process servers for seconds.
@Suite struct PasswordCryptTests {
    func hashed(_ password: String) async throws -> String {
        try await offPool { try PasswordCrypt.hash(password) }
    }

    func verify(_ password: String, against hash: String) async -> Bool {
        await offPool { PasswordCrypt.verify(password, against: hash) }
    }

    @Test func hashIsYescrypt() async throws {
        let hash = try await hashed("correct horse battery staple")
        #expect(hash.hasPrefix("$y$"))
        #expect(hash.split(separator: "$").count == 4)
    }

    @Test func verifiesTheRightPasswordOnly() async throws {
        let hash = try await hashed("correct horse battery staple")
        #expect(await verify("correct horse battery staple", against: hash))
        #expect(await !verify("correct horse battery stapl", against: hash))
        #expect(await !verify("", against: hash))
    }

    /// The unknown-user path checks passwords against a decoy: it must look like a real hash
    /// (same setting, salt and hash lengths), match nothing, and cost a full hash to check,
    /// measured as this thread's CPU time (a decoy libxcrypt refused at once would take microseconds).
    @Test func decoyHashCostsWhatARealOneDoesAndMatchesNothing() async throws {
        let real = try await hashed("correct horse battery staple")
        let decoy = try PasswordCrypt.decoyHash()
        let (realParts, decoyParts) = (real.split(separator: "$"), decoy.split(separator: "$"))
        #expect(decoyParts.count == realParts.count)
        #expect(decoyParts.map(\.count) == realParts.map(\.count))
        #expect(decoyParts[1] == realParts[1], "the same cost parameters")
        #expect(decoy != (try PasswordCrypt.decoyHash()))
        let costs = await offPool { () -> (real: Double, decoy: Double, matched: Bool) in
            func cpuSeconds(_ work: () -> Bool) -> (Double, Bool) {
                var start = timespec(), end = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
                let matched = work()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
                return (Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9, matched)
            }
            var (reals, decoys, matched) = ([Double](), [Double](), false)
            for password in ["correct horse battery staple", "", "password", "correct horse battery stapl", "x"] {
                let (realCost, _) = cpuSeconds { PasswordCrypt.verify(password, against: real) }
                let (decoyCost, decoyMatched) = cpuSeconds { PasswordCrypt.verify(password, against: decoy) }
                reals.append(realCost)
                decoys.append(decoyCost)
                matched = matched || decoyMatched
            }
            return (reals.sorted()[2], decoys.sorted()[2], matched)
        }
        #expect(!costs.matched)
        #expect(costs.decoy > costs.real / 2 && costs.decoy < costs.real * 2, "median CPU: decoy \(costs.decoy) s, real \(costs.real) s")
    }

    @Test func saltsEveryHash() async throws {
        let first = try await hashed("same password")
        let second = try await hashed("same password")
        #expect(first != second)
        #expect(await verify("same password", against: first))
        #expect(await verify("same password", against: second))
    }

    @Test(arguments: [
        "", "*0", "*1", "garbage", "$y$", "$y$j9T$", "$y$j9T$$", "$1$$I2o9Z7NcvQAKp7wyCTlia0", "gaobrBilklkzU",
        "$y$j9T$Yo6oDCf/tvNj25Ew6rW9L0$d7BD4BpwBiTp0GdmAkNsCBZNJjjZ0/PKuZ8Dmd608P9x", "$y$\u{0}",
    ])
    func rejectsMalformedStoredHashes(storedHash: String) async {
        #expect(await !verify("password", against: storedHash))
    }

    @Test func acceptsOnlyYescryptStoredHashes() async {
        // A valid legacy DES hash of "password" (salt "ga"); DES would also accept "passwordXYZ".
        #expect(await !verify("password", against: "gaobrBilklkzU"))
    }

    @Test func rejectsNULInPasswords() async throws {
        await #expect(throws: PasswordCryptError.passwordContainsNUL) { try await hashed("pass\u{0}word") }
        let hash = try await hashed("pass")
        #expect(await !verify("pass\u{0}word", against: hash))
    }

    @Test func errorDescriptionsNeverIncludeThePassword() async {
        let secret = "pass\u{0}hunter2"
        var thrown: PasswordCryptError?
        do { _ = try await hashed(secret) } catch let error as PasswordCryptError { thrown = error } catch {}
        #expect(thrown.map { !$0.description.contains("hunter2") } == true)
    }

    @Test func hashesAThousandCharacterPassword() async throws {
        let password = String(repeating: "long password ", count: 72).prefix(1000)
        #expect(password.utf8.count == 1000)
        let hash = try await hashed(String(password))
        #expect(await verify(String(password), against: hash))
        #expect(await !verify(String(password.dropLast()) + "X", against: hash))
        #expect(await !verify(String(password.prefix(511)), against: hash))
    }

    @Test func distinguishesPasswordsAroundTheLibxcryptLimit() async throws {
        let limit = String(repeating: "a", count: 511)
        let over = limit + "a"
        let limitHash = try await hashed(limit)
        let overHash = try await hashed(over)
        #expect(await verify(limit, against: limitHash))
        #expect(await verify(over, against: overHash))
        #expect(await !verify(over, against: limitHash))
        #expect(await !verify(limit, against: overHash))
    }

    @Test func hashesAUnicodePassword() async throws {
        let password = "pässwörd 密码 🔐 Ελληνικά"
        let hash = try await hashed(password)
        #expect(await verify(password, against: hash))
        // The same text in decomposed form is different bytes, so a different password.
        #expect(await !verify("pa\u{0308}sswörd 密码 🔐 Ελληνικά", against: hash))
    }
}
