import Store

extension PostgresAccountStorage {
    /// The schema's table names, quoted and qualified.
    struct Tables {
        let session: String
        let secret: String
        let photo: String
        let photoUse: String
        let signInFailure: String
        let password: String
        let email: String
        let mailToken: String
        let mailAllowance: String
        let resetRequest: String
        let outbox: String

        init(schema: String) {
            let prefix = PostgresSchemaMigrator.quoted(schema) + "."
            session = prefix + "session"
            secret = prefix + "secret"
            photo = prefix + "photo"
            photoUse = prefix + "photo_use"
            signInFailure = prefix + "sign_in_failure"
            password = prefix + "password"
            email = prefix + "email"
            mailToken = prefix + "mail_token"
            mailAllowance = prefix + "mail_allowance"
            resetRequest = prefix + "reset_request"
            outbox = prefix + "outbox"
        }
    }

    /// The numbered schema changes of the account tables.
    package static let migrations: [[String]] = [
        [
            """
            CREATE TABLE session (
                id bytea PRIMARY KEY,
                user_id bigint NOT NULL,
                created_at double precision NOT NULL,
                last_used_at double precision NOT NULL
            )
            """,
            "CREATE INDEX session_last_used ON session (last_used_at)",
            "CREATE TABLE photo (hash text PRIMARY KEY, media_type text NOT NULL, bytes bytea NOT NULL)",
            "CREATE TABLE secret (name text PRIMARY KEY, value bytea NOT NULL)",
            // One row per username, updated in place: ON CONFLICT DO UPDATE locks it, so
            // concurrent failures from several instances are counted one after the other.
            """
            CREATE TABLE sign_in_failure (
                username text PRIMARY KEY,
                failures double precision[] NOT NULL,
                locked_until double precision
            )
            """,
        ],
        // What keeps a photo's bytes (``PhotoStorage``): open claims, the newest at `claimed_at`
        // (seconds since 1970, the server's clock), and the newest journal entry a reference was
        // applied through. Apart from `photo`, and every photo has a row, so a claim and a
        // deletion always meet on this row's lock.
        [
            """
            CREATE TABLE photo_use (
                hash text PRIMARY KEY,
                claims integer NOT NULL DEFAULT 0,
                claimed_at double precision,
                referenced_through bigint NOT NULL DEFAULT 0
            )
            """,
            "INSERT INTO photo_use (hash) SELECT hash FROM photo",
        ],
        // Rows are keyed `namespace:key` now (the sign-in throttle's usernames, the per-address
        // limits' addresses); what the old keys counted is at most a minute of failures.
        ["DELETE FROM sign_in_failure"],
        // The browser a session began in (its `User-Agent`, cut short), a person's sessions found
        // by person, and password hashes set by a change of password: secrets kept here, never in
        // the journal (a row here overrides the hash the person's sign-up recorded).
        [
            "ALTER TABLE session ADD COLUMN user_agent text",
            "CREATE INDEX session_by_user ON session (user_id)",
            // IF NOT EXISTS: the journal's second migration creates it too, for a journal alone.
            "CREATE TABLE IF NOT EXISTS password (user_id bigint PRIMARY KEY, hash text NOT NULL)",
        ],
        // Email addresses, mail links and the outbox (``MailStorage``), as in SQLite: secrets
        // beside the password hashes, never in the journal.
        [
            "CREATE TABLE email (user_id bigint PRIMARY KEY, verified text, verified_key text UNIQUE, pending text)",
            """
            CREATE TABLE mail_token (
                hash bytea PRIMARY KEY, user_id bigint NOT NULL, purpose text NOT NULL, address text,
                expires_at double precision NOT NULL
            )
            """,
            "CREATE INDEX mail_token_user ON mail_token (user_id)",
            "CREATE TABLE mail_allowance (key text NOT NULL, at double precision NOT NULL)",
            "CREATE INDEX mail_allowance_key ON mail_allowance (key, at)",
            "CREATE TABLE reset_request (id bigserial PRIMARY KEY, address text NOT NULL, requested_at double precision NOT NULL)",
            """
            CREATE TABLE outbox (
                id bigserial PRIMARY KEY, user_id bigint, message text NOT NULL, attempts integer NOT NULL DEFAULT 0,
                queued_at double precision NOT NULL, next_attempt_at double precision NOT NULL, claimed_until double precision
            )
            """,
            "CREATE INDEX outbox_due ON outbox (next_attempt_at)",
            "CREATE INDEX outbox_user ON outbox (user_id)",
        ],
    ]
}
