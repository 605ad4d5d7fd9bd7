internal import CSQLite
#if canImport(Glibc)
internal import Glibc
#endif

/// The `AttestStore` in one SQLite file: WAL journal (readers never block the writer), synchronous=FULL (a commit
/// that returned survives a crash or power loss), a busy timeout instead of instant "database is locked" failures,
/// and every promise of the protocol carried by a single SQL statement or an IMMEDIATE transaction.
public final class SQLiteAttestStore: AttestStore {
    /// How long a call waits for another process's write lock before failing.
    public static let busyTimeoutMilliseconds: Int32 = 15_000
    static let schemaVersion: Int64 = 1

    public let path: String
    private let connection: SQLiteConnection

    /// Opens (creating when missing) the store at `path`.
    public init(path: String) throws(AttestError) {
        self.path = path
        connection = try SQLiteConnection(path: path, busyTimeout: Self.busyTimeoutMilliseconds)
        try migrate()
    }

    private func migrate() throws(AttestError) {
        // journal_mode is persistent in the file; setting it again is a cheap no-op.
        _ = try connection.rows("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=FULL")
        try connection.transaction { () throws(AttestError) in
            let version = try connection.rows("PRAGMA user_version").first?.first?.integer ?? 0
            if version == Self.schemaVersion { return }
            guard version == 0 else {
                throw AttestError(.store, "\(path): store schema version \(version) is not one this omni knows (\(Self.schemaVersion))")
            }
            try connection.execute("""
                CREATE TABLE challenges (
                    challenge BLOB PRIMARY KEY,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE keys (
                    key_id BLOB PRIMARY KEY,
                    public_key BLOB NOT NULL,
                    app_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    counter INTEGER NOT NULL CHECK (counter BETWEEN 0 AND 4294967295),
                    enrolled_at INTEGER NOT NULL,
                    last_used_at INTEGER,
                    revoked_at INTEGER,
                    receipt BLOB
                ) WITHOUT ROWID;
                PRAGMA user_version = 1;
                """)
        }
    }

    public func addChallenge(_ challenge: StoredChallenge) throws(AttestError) {
        try connection.transaction { () throws(AttestError) in
            // Expired challenges can never be used; dropping them here keeps the table small without a janitor.
            try connection.run("DELETE FROM challenges WHERE expires_at <= ?1", [.integer(challenge.createdAt)])
            try connection.run("INSERT INTO challenges (challenge, created_at, expires_at) VALUES (?1, ?2, ?3)",
                               [.blob(challenge.value), .integer(challenge.createdAt), .integer(challenge.expiresAt)])
        }
    }

    public func consumeChallenge(_ value: [UInt8], at time: Int64) throws(AttestError) -> ChallengeConsumption {
        // One statement, so delete and read are one atomic step: of N racing consumers exactly one gets the row.
        let rows = try connection.rows("DELETE FROM challenges WHERE challenge = ?1 RETURNING created_at, expires_at",
                                       [.blob(value)])
        guard let row = rows.first, let createdAt = row[0].integer, let expiresAt = row[1].integer else { return .unknown }
        let challenge = StoredChallenge(value: value, createdAt: createdAt, expiresAt: expiresAt)
        return time < expiresAt ? .valid(challenge) : .expired(challenge)
    }

    public func enroll(_ key: EnrolledKey) throws(AttestError) -> Bool {
        try connection.run("""
            INSERT INTO keys (key_id, public_key, app_id, environment, counter, enrolled_at, last_used_at, revoked_at, receipt)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (key_id) DO NOTHING
            """, [.blob(key.keyID), .blob(key.publicKey), .text(key.appID), .text(key.environment.rawValue),
                  .integer(Int64(key.counter)), .integer(key.enrolledAt), key.lastUsedAt.map { .integer($0) } ?? .null,
                  key.revokedAt.map { .integer($0) } ?? .null, key.receipt.map { .blob($0) } ?? .null]) == 1
    }

    public func key(id: [UInt8]) throws(AttestError) -> EnrolledKey? {
        guard let row = try connection.rows("SELECT \(Self.keyColumns) FROM keys WHERE key_id = ?1", [.blob(id)]).first else { return nil }
        return try key(from: row)
    }

    public func keys() throws(AttestError) -> [EnrolledKey] {
        var keys: [EnrolledKey] = []
        for row in try connection.rows("SELECT \(Self.keyColumns) FROM keys ORDER BY enrolled_at, key_id") { keys.append(try key(from: row)) }
        return keys
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, at time: Int64) throws(AttestError) -> Bool {
        // Compare-and-set in one statement: a second verification of the same counter finds it no longer lower.
        try connection.run("""
            UPDATE keys SET counter = ?2, last_used_at = ?3
            WHERE key_id = ?1 AND counter < ?2 AND revoked_at IS NULL
            """, [.blob(keyID), .integer(Int64(counter)), .integer(time)]) == 1
    }

    public func revoke(keyID: [UInt8], at time: Int64) throws(AttestError) -> Bool {
        try connection.run("UPDATE keys SET revoked_at = ?2 WHERE key_id = ?1 AND revoked_at IS NULL",
                           [.blob(keyID), .integer(time)]) == 1
    }

    private static let keyColumns = "key_id, public_key, app_id, environment, counter, enrolled_at, last_used_at, revoked_at, receipt"

    /// A row of `keys`; one that does not read back as a key is a damaged store, not an unknown key.
    private func key(from row: [SQLiteValue]) throws(AttestError) -> EnrolledKey {
        guard row.count == 9, let keyID = row[0].blob, let publicKey = row[1].blob, let appID = row[2].text,
              let environment = row[3].text.flatMap(AttestEnvironment.init(rawValue:)),
              let counter = row[4].integer.flatMap(UInt32.init(exactly:)), let enrolledAt = row[5].integer
        else {
            let id = row.first?.blob.map { AttestBase64.encode($0) } ?? "?"
            throw AttestError(.store, "\(path): the stored row of key \(id) is damaged (a column has the wrong type or value)")
        }
        return EnrolledKey(keyID: keyID, publicKey: publicKey, appID: appID, environment: environment, counter: counter,
                           enrolledAt: enrolledAt, lastUsedAt: row[6].integer, revokedAt: row[7].integer, receipt: row[8].blob)
    }
}

/// One value bound to or read from SQLite.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    var integer: Int64? { if case .integer(let value) = self { return value }; return nil }
    var text: String? { if case .text(let value) = self { return value }; return nil }
    var blob: [UInt8]? { if case .blob(let value) = self { return value }; return nil }
}

/// A thin owner of one `sqlite3` handle: prepared statements per call (the store is not a hot loop), errors with
/// SQLite's own message.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private let path: String

    init(path: String, busyTimeout: Int32) throws(AttestError) {
        self.path = path
        try Self.createPrivately(path)
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let opened { sqlite3_close_v2(opened) }
            throw AttestError(.store, "cannot open store \(path): \(message)")
        }
        handle = opened
        sqlite3_busy_timeout(handle, busyTimeout)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Creates a missing store file with mode 0600 before SQLite opens it: SQLite would create it 0644, and it gives
    /// the -wal and -shm files the database file's mode, so all three stay private to the owner. (A umask around the
    /// open would change it for every thread of the process.) An existing file is left as it is.
    private static func createPrivately(_ path: String) throws(AttestError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        guard code == EEXIST else {
            throw AttestError(.store, "cannot create store \(path): \(String(cString: strerror(code)))")
        }
    }

    /// Runs statements without results (several separated by semicolons).
    func execute(_ sql: String) throws(AttestError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw failure(text)
        }
    }

    /// Runs one statement and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(AttestError) -> Int {
        _ = try rows(sql, bindings)
        return Int(sqlite3_changes(handle))
    }

    /// Runs one statement and returns every result row.
    func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws(AttestError) -> [[SQLiteValue]] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw failure(String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in bindings.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
            case .text(let text): status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .blob(let bytes):
                if bytes.isEmpty {
                    status = sqlite3_bind_zeroblob(statement, position, 0)
                } else {
                    status = bytes.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32(bytes.count), Self.transient) }
                }
            case .null: status = sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw failure(String(cString: sqlite3_errmsg(handle))) }
        }
        var result: [[SQLiteValue]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw failure(String(cString: sqlite3_errmsg(handle))) }
            let columns = sqlite3_column_count(statement)
            var row: [SQLiteValue] = []
            for column in 0..<columns {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_TEXT:
                    let text = sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
                    row.append(.text(text))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let bytes = sqlite3_column_blob(statement, column), count > 0 {
                        row.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: count))))
                    } else {
                        row.append(.blob([]))
                    }
                default: row.append(.null)
                }
            }
            result.append(row)
        }
        return result
    }

    /// Runs `body` inside BEGIN IMMEDIATE … COMMIT (the write lock is taken up front, so two writers never deadlock
    /// upgrading a read lock); rolls back when it throws.
    func transaction(_ body: () throws(AttestError) -> Void) throws(AttestError) {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    private func failure(_ message: String) -> AttestError {
        AttestError(.store, "store \(path): \(message)")
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

extension SQLiteAttestStore {
    /// The SQLite library's own version string, e.g. "3.46.1" (opens the library).
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
