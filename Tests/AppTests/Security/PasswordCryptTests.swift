import App
import Testing

@Suite struct PasswordCryptTests {
    @Test func hashIsYescrypt() throws {
        let hash = try PasswordCrypt.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$y$"))
        #expect(hash.split(separator: "$").count == 4)
    }

    @Test func verifiesTheRightPasswordOnly() throws {
        let hash = try PasswordCrypt.hash("correct horse battery staple")
        #expect(PasswordCrypt.verify("correct horse battery staple", against: hash))
        #expect(!PasswordCrypt.verify("correct horse battery stapl", against: hash))
        #expect(!PasswordCrypt.verify("", against: hash))
    }

    @Test func saltsEveryHash() throws {
        let first = try PasswordCrypt.hash("same password")
        let second = try PasswordCrypt.hash("same password")
        #expect(first != second)
        #expect(PasswordCrypt.verify("same password", against: first))
        #expect(PasswordCrypt.verify("same password", against: second))
    }

    @Test(arguments: [
        "", "*0", "*1", "garbage", "$y$", "$y$j9T$", "$y$j9T$$", "$1$$I2o9Z7NcvQAKp7wyCTlia0", "gaobrBilklkzU",
        "$y$j9T$Yo6oDCf/tvNj25Ew6rW9L0$d7BD4BpwBiTp0GdmAkNsCBZNJjjZ0/PKuZ8Dmd608P9x", "$y$\u{0}",
    ])
    func rejectsMalformedStoredHashes(storedHash: String) {
        #expect(!PasswordCrypt.verify("password", against: storedHash))
    }

    @Test func acceptsOnlyYescryptStoredHashes() {
        // A valid legacy DES hash of "password" (salt "ga"); DES would also accept "passwordXYZ".
        #expect(!PasswordCrypt.verify("password", against: "gaobrBilklkzU"))
    }

    @Test func rejectsNULInPasswords() throws {
        #expect(throws: PasswordCryptError.passwordContainsNUL) { try PasswordCrypt.hash("pass\u{0}word") }
        let hash = try PasswordCrypt.hash("pass")
        #expect(!PasswordCrypt.verify("pass\u{0}word", against: hash))
    }

    @Test func errorDescriptionsNeverIncludeThePassword() {
        let secret = "pass\u{0}hunter2"
        var thrown: PasswordCryptError?
        do { _ = try PasswordCrypt.hash(secret) } catch { thrown = error }
        #expect(thrown.map { !$0.description.contains("hunter2") } == true)
    }

    @Test func hashesAThousandCharacterPassword() throws {
        let password = String(repeating: "long password ", count: 72).prefix(1000)
        #expect(password.utf8.count == 1000)
        let hash = try PasswordCrypt.hash(String(password))
        #expect(PasswordCrypt.verify(String(password), against: hash))
        #expect(!PasswordCrypt.verify(String(password.dropLast()) + "X", against: hash))
        #expect(!PasswordCrypt.verify(String(password.prefix(511)), against: hash))
    }

    @Test func distinguishesPasswordsAroundTheLibxcryptLimit() throws {
        let limit = String(repeating: "a", count: 511)
        let over = limit + "a"
        let limitHash = try PasswordCrypt.hash(limit)
        let overHash = try PasswordCrypt.hash(over)
        #expect(PasswordCrypt.verify(limit, against: limitHash))
        #expect(PasswordCrypt.verify(over, against: overHash))
        #expect(!PasswordCrypt.verify(over, against: limitHash))
        #expect(!PasswordCrypt.verify(limit, against: overHash))
    }

    @Test func hashesAUnicodePassword() throws {
        let password = "pässwörd 密码 🔐 Ελληνικά"
        let hash = try PasswordCrypt.hash(password)
        #expect(PasswordCrypt.verify(password, against: hash))
        // The same text in decomposed form is different bytes, so a different password.
        #expect(!PasswordCrypt.verify("pa\u{0308}sswörd 密码 🔐 Ελληνικά", against: hash))
    }
}
