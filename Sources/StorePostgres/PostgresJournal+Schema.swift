import Foundation
import Store
/// The journal's tables and the statements that use them.
extension PostgresJournal {
    /// The numbered schema changes, each a list of statements (one per call), run by a
    /// ``PostgresSchemaMigrator`` as component `journal`, with the schema as `search_path`.
    package static let migrations: [[String]] = [
        [
            """
            CREATE TABLE journal (
                sequence bigint PRIMARY KEY,
                recorded_at timestamptz NOT NULL DEFAULT now(),
                action text NOT NULL,
                quote_id bigint
            )
            """,
            "CREATE INDEX journal_quote ON journal (quote_id, sequence) WHERE quote_id IS NOT NULL",
            "CREATE TABLE journal_head (id integer PRIMARY KEY CHECK (id = 1), sequence bigint NOT NULL)",
            "INSERT INTO journal_head (id, sequence) VALUES (1, 0)",
            """
            CREATE TABLE journal_snapshot (
                id integer PRIMARY KEY CHECK (id = 1),
                sequence bigint NOT NULL,
                state bytea NOT NULL
            )
            """,
        ],
        // Secrets out of the journal, and what names a person erasable (docs/store.md,
        // "Erasure"); the same change as SQLite's migration 7: entries about a person indexed
        // under them (a sign-up under its rank among sign-ups), sign-ups' hashes moved to
        // `password` (a row there is newer), and the snapshot, which held them too, dropped.
        [
            "ALTER TABLE journal ADD COLUMN person_id bigint",
            """
            UPDATE journal SET person_id = signups.rank FROM (
                SELECT sequence, row_number() OVER (ORDER BY sequence) AS rank FROM journal
                WHERE action::jsonb ? 'signUp'
            ) AS signups WHERE journal.sequence = signups.sequence
            """,
            """
            UPDATE journal SET person_id = coalesce(
                action::jsonb #>> '{changeDisplayName,_0}', action::jsonb #>> '{setPhoto,_0}',
                action::jsonb #>> '{setFavourite,_0}', action::jsonb #>> '{passwordChanged,_0}'
            )::bigint WHERE person_id IS NULL
            """,
            "CREATE TABLE IF NOT EXISTS password (user_id bigint PRIMARY KEY, hash text NOT NULL)",
            """
            INSERT INTO password (user_id, hash)
                SELECT person_id, action::jsonb #>> '{signUp,passwordHash}' FROM journal
                WHERE jsonb_typeof(action::jsonb #> '{signUp,passwordHash}') = 'string'
            ON CONFLICT (user_id) DO NOTHING
            """,
            """
            UPDATE journal SET action = (action::jsonb #- '{signUp,passwordHash}')::text
            WHERE action::jsonb #> '{signUp,passwordHash}' IS NOT NULL
            """,
            "DELETE FROM journal_snapshot",
            "CREATE INDEX journal_person ON journal (person_id) WHERE person_id IS NOT NULL",
        ],
        // The versions an entry made of quotes it is not indexed under (a revert: one entry, many
        // quotes), each as the action history reads for it (``JournalRecord/versions``); and what
        // moderators did about a person out of their index, as in SQLite's migration 10.
        [
            """
            CREATE TABLE journal_version (
                quote_id bigint NOT NULL,
                sequence bigint NOT NULL,
                action text NOT NULL,
                PRIMARY KEY (quote_id, sequence)
            )
            """,
            """
            UPDATE journal SET person_id = NULL
            WHERE person_id IS NOT NULL AND action::jsonb ?| array['setRole', 'suspend', 'unsuspend']
            """,
        ],
    ]

    /// Creates `schema` when missing and applies the migrations it lacks (see
    /// ``PostgresSchemaMigrator``: one transaction under an advisory lock, so instances starting
    /// together on an empty database take turns instead of colliding).
    static func migrate(_ connection: PostgresConnection, schema: String) throws(StoreError) {
        try PostgresSchemaMigrator(component: "journal", migrations: migrations, legacyVersionTable: "journal_schema")
            .migrate(connection, schema: schema)
    }

    /// The journal's SQL with its schema filled in.
    struct Statements {
        let entriesAfter: String
        /// A page of quote `$1`'s entries, oldest first: `$2` rows (NULL: all) after skipping `$3`
        /// (https://www.postgresql.org/docs/15/queries-limit.html), along the `journal_quote` index.
        let entriesOfQuote: String
        /// Every entry indexed under a quote, with its quote, in sequence order (``versionsMade(by:in:)``).
        let quoteEntries: String
        /// `$1` entries on top of entry `$2` (NULL: any), notifying channel `$3`: the new head, or
        /// no row when the head is not `$2`. In READ COMMITTED, an append that waited for another
        /// one's lock re-checks the head that one left (https://www.postgresql.org/docs/15/transaction-iso.html#XACT-READ-COMMITTED).
        let advanceHead: String
        let readHead: String
        /// Takes the head row's lock until the transaction ends: no other append can commit meanwhile.
        let lockHead: String
        let readSnapshot: String
        /// Keeps the newer of the stored snapshot and `$1`/`$2`.
        let saveSnapshot: String
        private let schema: String

        init(schema: String) {
            self.schema = schema
            entriesAfter = "SELECT sequence, action FROM \(schema).journal WHERE sequence > $1 ORDER BY sequence"
            entriesOfQuote = """
                SELECT sequence, action FROM \(schema).journal WHERE quote_id = $1::bigint
                UNION ALL SELECT sequence, action FROM \(schema).journal_version WHERE quote_id = $1::bigint
                ORDER BY sequence LIMIT $2::bigint OFFSET $3::bigint
                """
            quoteEntries = """
                SELECT sequence, action, quote_id FROM \(schema).journal WHERE quote_id IS NOT NULL
                UNION ALL SELECT sequence, action, quote_id FROM \(schema).journal_version
                ORDER BY sequence
                """
            advanceHead = """
                WITH head AS (
                    UPDATE \(schema).journal_head SET sequence = sequence + $1::bigint
                    WHERE id = 1 AND ($2::bigint IS NULL OR sequence = $2::bigint)
                    RETURNING sequence
                )
                SELECT sequence, pg_notify($3, sequence::text) FROM head
                """
            readHead = "SELECT sequence FROM \(schema).journal_head WHERE id = 1"
            lockHead = "SELECT sequence FROM \(schema).journal_head WHERE id = 1 FOR UPDATE"
            readSnapshot = "SELECT sequence, state FROM \(schema).journal_snapshot WHERE id = 1"
            saveSnapshot = """
                INSERT INTO \(schema).journal_snapshot AS kept (id, sequence, state) VALUES (1, $1::bigint, $2::bytea)
                ON CONFLICT (id) DO UPDATE SET sequence = EXCLUDED.sequence, state = EXCLUDED.state
                WHERE kept.sequence < EXCLUDED.sequence
                """
        }

        /// The parameters of ``entriesOfQuote``: no limit (NULL) for `Int.max`.
        static func pageParameters(_ quote: QuoteID, offset: Int, limit: Int) -> [String?] {
            [String(quote.rawValue), limit == .max ? nil : String(max(0, limit)), String(max(0, offset))]
        }

        /// An `INSERT` of `rows` entries, four parameters each: sequence, action, quote id, person id.
        func insert(rows: Int) -> String {
            let values = (0..<rows).map { row in
                "($\(4 * row + 1)::bigint, $\(4 * row + 2), $\(4 * row + 3)::bigint, $\(4 * row + 4)::bigint)"
            }
            return "INSERT INTO \(schema).journal (sequence, action, quote_id, person_id) VALUES " + values.joined(separator: ", ")
        }

        /// An `INSERT` of `rows` versions' index rows, three parameters each: quote id, sequence, action.
        func insertVersions(rows: Int) -> String {
            let values = (0..<rows).map { row in "($\(3 * row + 1)::bigint, $\(3 * row + 2)::bigint, $\(3 * row + 3))" }
            return "INSERT INTO \(schema).journal_version (quote_id, sequence, action) VALUES " + values.joined(separator: ", ")
        }

        /// Rewrites person `$2`'s entries before `$3` as `$1`, their erased form; a report keeps
        /// its place (report ids count reports) with its reason erased, as in ``SQLiteJournal``.
        var erase: String {
            """
            UPDATE \(schema).journal SET action = CASE WHEN action::jsonb ? 'reportQuote'
                THEN jsonb_set(action::jsonb, '{reportQuote,reason}', '""')::text ELSE $1 END
            WHERE person_id = $2::bigint AND sequence < $3::bigint
            """
        }
    }
}
