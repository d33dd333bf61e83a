import Foundation
package import Store

/// Opening Quotebook's SQLite database: one file holds the journal, the snapshot, sessions,
/// photos and secrets, each table used through its own connection by its own owner.
///
/// Opening never changes a file that is not Quotebook's: the application id and schema are
/// checked with reads before anything is written, and the schema is migrated only after.
package enum QuotebookDatabase {
    /// Quotebook's `PRAGMA application_id` ("QBK1"), https://sqlite.org/pragma.html#pragma_application_id.
    package static let applicationID: Int64 = 0x5142_4B31

    /// The numbered schema changes; each runs once, in one transaction with its version bump.
    package static let migrations: [String] = [
        """
        CREATE TABLE journal (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            action TEXT NOT NULL
        );
        """,
        """
        CREATE TABLE snapshot (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            sequence INTEGER NOT NULL,
            state TEXT NOT NULL
        );
        """,
        // Sessions and photos are not actions: a session is a credential that must be revocable
        // and expire, and a photo's bytes are named by their hash, which the journal records.
        """
        CREATE TABLE session (
            id BLOB PRIMARY KEY,
            user_id INTEGER NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX session_last_used ON session (last_used_at);
        CREATE TABLE photo (
            hash TEXT PRIMARY KEY,
            media_type TEXT NOT NULL,
            bytes BLOB NOT NULL
        );
        CREATE TABLE secret (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        """,
        // A quote's history is read from the journal, so each entry that changed a quote names
        // it. Before this, only adds and edits existed: an edit names its quote, and an add's
        // quote id is its rank among adds (ids are given in order from 1, and the journal holds
        // only accepted actions).
        """
        ALTER TABLE journal ADD COLUMN quote_id INTEGER;
        UPDATE journal SET quote_id = json_extract(action, '$.editQuote._0')
            WHERE json_type(action, '$.editQuote') IS NOT NULL;
        UPDATE journal SET quote_id = (
            SELECT rank FROM (
                SELECT sequence, row_number() OVER (ORDER BY sequence) AS rank FROM journal
                WHERE json_type(action, '$.addQuote') IS NOT NULL
            ) AS adds WHERE adds.sequence = journal.sequence
        ) WHERE json_type(action, '$.addQuote') IS NOT NULL;
        CREATE INDEX journal_quote ON journal (quote_id, sequence) WHERE quote_id IS NOT NULL;
        """,
        // What keeps a photo's bytes: uploads between storing them and releasing them (`claims`,
        // the newest at `claimed_at`, seconds since 1970 by the database's clock), and the newest
        // journal entry an action referring to it was applied through (`referenced_through`).
        // Apart from `photo`, so counting a claim never rewrites the bytes. See ``PhotoStorage``.
        """
        CREATE TABLE photo_use (
            hash TEXT PRIMARY KEY,
            claims INTEGER NOT NULL DEFAULT 0,
            claimed_at REAL,
            referenced_through INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        INSERT INTO photo_use (hash) SELECT hash FROM photo;
        """,
        // The browser a session began in (its `User-Agent`, cut short), a person's sessions found
        // by person, and password hashes set by a change of password: secrets kept here, never in
        // the journal (a row here overrides the hash the person's sign-up recorded).
        """
        ALTER TABLE session ADD COLUMN user_agent TEXT;
        CREATE INDEX session_by_user ON session (user_id);
        CREATE TABLE password (
            user_id INTEGER PRIMARY KEY,
            hash TEXT NOT NULL
        );
        """,
        // Secrets out of the journal, and what names a person erasable (docs/store.md, "Erasure").
        // Each entry about a person is indexed under them in `person_id`: a sign-up under the id it
        // gave (its rank among sign-ups, as ids are given in order from 1 and the journal holds
        // only accepted actions), a change of name, photo, favourite or password under its
        // subject. Each sign-up's password hash moves to `password` (a row already there is newer:
        // a change of password) and leaves the entry. The snapshot table of earlier builds held
        // hashes too; a snapshot is derived data.
        """
        ALTER TABLE journal ADD COLUMN person_id INTEGER;
        UPDATE journal SET person_id = (
            SELECT rank FROM (
                SELECT sequence, row_number() OVER (ORDER BY sequence) AS rank FROM journal
                WHERE json_type(action, '$.signUp') IS NOT NULL
            ) AS signups WHERE signups.sequence = journal.sequence
        ) WHERE json_type(action, '$.signUp') IS NOT NULL;
        UPDATE journal SET person_id = coalesce(
            json_extract(action, '$.changeDisplayName._0'), json_extract(action, '$.setPhoto._0'),
            json_extract(action, '$.setFavourite._0'), json_extract(action, '$.passwordChanged._0')
        ) WHERE person_id IS NULL;
        INSERT OR IGNORE INTO password (user_id, hash)
            SELECT person_id, json_extract(action, '$.signUp.passwordHash') FROM journal
            WHERE json_type(action, '$.signUp.passwordHash') = 'text';
        UPDATE journal SET action = json_remove(action, '$.signUp.passwordHash')
            WHERE json_type(action, '$.signUp.passwordHash') IS NOT NULL;
        DELETE FROM snapshot;
        CREATE INDEX journal_person ON journal (person_id) WHERE person_id IS NOT NULL;
        """,
        // Email addresses, mail links and the outbox (``MailStorage``): secrets beside the
        // password hashes, never in the journal. `verified_key` is the verified address in lower
        // case, one account's at most. A link is kept as its token's SHA-256. `mail_allowance`
        // holds one row per mail counted against a key, for the last hour; `reset_request` the
        // typed addresses of forgotten passwords until the sender resolves them.
        """
        CREATE TABLE email (
            user_id INTEGER PRIMARY KEY,
            verified TEXT,
            verified_key TEXT UNIQUE,
            pending TEXT
        );
        CREATE TABLE mail_token (
            hash BLOB PRIMARY KEY,
            user_id INTEGER NOT NULL,
            purpose TEXT NOT NULL,
            address TEXT,
            expires_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX mail_token_user ON mail_token (user_id);
        CREATE TABLE mail_allowance (key TEXT NOT NULL, at REAL NOT NULL);
        CREATE INDEX mail_allowance_key ON mail_allowance (key, at);
        CREATE TABLE reset_request (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            address TEXT NOT NULL,
            requested_at REAL NOT NULL
        );
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id INTEGER,
            message TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            queued_at REAL NOT NULL,
            next_attempt_at REAL NOT NULL,
            claimed_until REAL
        );
        CREATE INDEX outbox_due ON outbox (next_attempt_at);
        CREATE INDEX outbox_user ON outbox (user_id);
        """,
        // The versions an entry made of quotes it is not indexed under (a revert: one entry, many
        // quotes), each as the action history reads for it (``JournalRecord/versions``). And what
        // moderators did about a person is no longer indexed under them (``AppEvent/personID``):
        // an account's erasure leaves it in the log, as a replay of the journal then does too.
        """
        CREATE TABLE journal_version (
            quote_id INTEGER NOT NULL,
            sequence INTEGER NOT NULL,
            action TEXT NOT NULL,
            PRIMARY KEY (quote_id, sequence)
        ) WITHOUT ROWID;
        UPDATE journal SET person_id = NULL WHERE person_id IS NOT NULL AND (
            json_type(action, '$.setRole') IS NOT NULL OR json_type(action, '$.suspend') IS NOT NULL
            OR json_type(action, '$.unsuspend') IS NOT NULL);
        """,
    ]

    /// A connection to the database at `path` (a file, or `:memory:`), its schema current:
    /// created in a new database, migrated in an older one, refused in a foreign or damaged one.
    /// WAL mode with `synchronous=FULL` (https://sqlite.org/wal.html).
    static func open(path: String) throws(StoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        // Nothing is written until the file is known to be Quotebook's (or new): no checkpoint of
        // another application's WAL on close, and the checks below only read.
        try connection.setCheckpointOnClose(false)
        let isNew = try checkOwnership(of: connection)
        if isNew { try connection.execute("PRAGMA application_id = \(applicationID)") }
        try configureDurability(of: connection)
        try SchemaMigrator(migrations: migrations).migrate(connection)
        try connection.setCheckpointOnClose(true)
        return connection
    }

    /// A connection that only reads the existing Quotebook database at `path` (the operator
    /// commands): never creates, migrates or checkpoints it, and takes no data-directory lock, so
    /// it works beside a running server (WAL readers and the writer do not block each other).
    /// Throws for a missing file, another application's, or a schema other than this build's.
    package static func openForReading(path: String) throws(StoreError) -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.dataDirectory(path: path, reason: "there is no Quotebook database there")
        }
        // Read-write without create: a read-only connection could not use the WAL index a
        // running server shares (https://sqlite.org/wal.html#readonly); query_only forbids writes.
        let connection = try SQLiteConnection(path: path, create: false)
        try connection.setCheckpointOnClose(false)
        try connection.execute("PRAGMA query_only = ON")
        guard try !checkOwnership(of: connection) else { throw StoreError.foreignDatabase(path: path) }
        let version = Int(try connection.prepare("PRAGMA user_version").rows { $0.int(at: 0) }.first ?? 0)
        if version > migrations.count { throw StoreError.newerSchema(path: path, version: version) }
        guard version == migrations.count else {
            throw StoreError.dataDirectory(
                path: path, reason: "its schema (version \(version)) is older than this build's: start a server on it once to migrate it")
        }
        return connection
    }

    /// WAL mode with `synchronous=FULL`, so a committed transaction survives a crash and a power
    /// cut (https://sqlite.org/pragma.html#pragma_synchronous; WAL often runs at NORMAL, which a
    /// power cut can undo), and foreign keys enforced. `secure_delete`: what a deletion or an
    /// erasure removes is overwritten with zeros, not left in free space of the file
    /// (https://sqlite.org/pragma.html#pragma_secure_delete). The settings are per connection.
    package static func configureDurability(of connection: SQLiteConnection) throws(StoreError) {
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;")
    }

    /// Reads the application id, table count and schema version, writing nothing: true for a new
    /// (entirely empty) database, false for one marked as Quotebook's; anything else is another
    /// application's. A file SQLite cannot read is reported as damaged.
    private static func checkOwnership(of connection: SQLiteConnection) throws(StoreError) -> Bool {
        let applicationID: Int64
        let tableCount: Int64
        let userVersion: Int64
        do {
            applicationID = try connection.prepare("PRAGMA application_id").rows { $0.int(at: 0) }.first ?? 0
            tableCount = try connection.prepare("SELECT count(*) FROM sqlite_master").rows { $0.int(at: 0) }.first ?? 0
            userVersion = try connection.prepare("PRAGMA user_version").rows { $0.int(at: 0) }.first ?? 0
        } catch {
            throw StoreError.damagedDatabase(path: connection.path, reason: "\(error)")
        }
        if applicationID == Self.applicationID { return false }
        guard applicationID == 0, tableCount == 0, userVersion == 0 else {
            throw StoreError.foreignDatabase(path: connection.path)
        }
        return true
    }
}
