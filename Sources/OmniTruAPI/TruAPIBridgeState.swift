import OmniCodec
import OmniSystem

/// A push notification the product scheduled or sent.
public struct TruAPINotification: Sendable, Equatable {
    public let id: UInt32
    public let text: String
    public let deeplink: String?
    /// Unix milliseconds; nil for "now".
    public let scheduledAt: UInt64?

    public init(id: UInt32, text: String, deeplink: String?, scheduledAt: UInt64?) {
        self.id = id
        self.text = text
        self.deeplink = deeplink
        self.scheduledAt = scheduledAt
    }
}

/// What a change to the state came to.
public enum TruAPIStateOutcome: Sendable, Equatable {
    case done
    /// The storage quota would be exceeded (`HostLocalStorageReadError::Full`).
    case full
    /// The state could not be written; nothing changed (`Unknown { reason }`).
    case failed(String)
}

/// A bridge's state, shared by all its connections: product local storage (under the reference's scoped keys),
/// permission decisions and pending notifications. With a directory every change is written before it is
/// answered, atomically (temporary file, fsync, rename, directory fsync), so a bridge killed at any moment — even
/// SIGKILL in the middle of a write — loses nothing it had confirmed; without one it lives in memory (`--ephemeral`).
///
/// Files: `storage.json`, `permissions.json`, `notifications.json` (mode 0600, in a 0700 directory) and `lock`,
/// which keeps a second bridge out of the same directory.
public final class TruAPIBridgeState: @unchecked Sendable {
    public static let maximumPendingNotifications = 64
    static let fileNames = ["storage.json", "permissions.json", "notifications.json"]
    /// A state file is at most the quota in hex plus room for keys; anything far larger is not ours.
    static let maximumFileBytes = 256 << 20

    /// Nil when the state is kept in memory.
    public let directory: String?
    /// Bytes of values local storage may hold (keys count too).
    public let quota: Int

    private let lock = Lock()
    private var entries: [String: [UInt8]] = [:]
    private var storedBytes = 0
    private var decisions: [String: Bool] = [:]
    private var nextNotificationID: UInt32 = 1
    private var pending: [TruAPINotification] = []

    /// Holds the state directory's lock while this state is in use.
    private var lockDescriptor: Int32?

    private init(directory: String?, quota: Int) {
        self.directory = directory
        self.quota = quota
    }

    deinit {
        if let lockDescriptor { TruAPIStateDirectory.unlock(lockDescriptor) }
    }

    /// State in memory only.
    public static func ephemeral(quota: Int = 16 << 20) -> TruAPIBridgeState {
        TruAPIBridgeState(directory: nil, quota: quota)
    }

    /// Opens (creating it 0700 if needed) and locks `directory`, and loads what a previous run left. A damaged file
    /// fails with its name and the line and column; a second bridge on the same directory fails too.
    public static func open(directory: String, quota: Int = 16 << 20) throws(TruAPIError) -> TruAPIBridgeState {
        do { try AtomicFile.makeDirectories(directory, mode: 0o700) } catch {
            throw TruAPIError(.configuration, "state directory: \(error.description)")
        }
        guard TruAPIStateDirectory.isDirectory(directory) else {
            throw TruAPIError(.configuration, "state directory \(directory) is not a directory")
        }
        let lock: Int32
        switch TruAPIStateDirectory.lock(directory) {
        case .success(let descriptor): lock = descriptor
        case .failure(let failure): throw TruAPIError(.configuration, "state directory: \(failure.message)")
        }
        TruAPIStateDirectory.removeStaleTemporaries(in: directory, names: fileNames)
        let state = TruAPIBridgeState(directory: directory, quota: quota)
        state.lockDescriptor = lock
        try state.load()
        return state
    }

    // MARK: - Local storage

    public func read(_ scopedKey: String) -> [UInt8]? { lock.withLock { entries[scopedKey] } }

    public func write(_ scopedKey: String, _ value: [UInt8]) -> TruAPIStateOutcome {
        lock.withLock {
            let old = entries[scopedKey]
            let size = storedBytes - (old.map { $0.count + scopedKey.utf8.count } ?? 0) + value.count + scopedKey.utf8.count
            guard size <= quota else { return .full }
            entries[scopedKey] = value
            if let problem = saveLocked("storage.json", storageJSON()) {
                entries[scopedKey] = old
                return .failed(problem)
            }
            storedBytes = size
            return .done
        }
    }

    public func clear(_ scopedKey: String) -> TruAPIStateOutcome {
        lock.withLock {
            guard let old = entries.removeValue(forKey: scopedKey) else { return .done }
            if let problem = saveLocked("storage.json", storageJSON()) {
                entries[scopedKey] = old
                return .failed(problem)
            }
            storedBytes -= old.count + scopedKey.utf8.count
            return .done
        }
    }

    /// Every stored key (for tests and diagnostics).
    public var storageKeys: [String] { lock.withLock { entries.keys.sorted() } }

    // MARK: - Permission decisions

    /// The decision a user gave before: true authorised, false denied, nil not determined.
    public func decision(for subject: TruAPIPermissionSubject) -> Bool? { lock.withLock { decisions[subject.key] } }

    /// Remembers a user's answer (nil clears it, as `setPermissionAuthorizationStatus(notDetermined)` does).
    public func setDecision(_ granted: Bool?, for subject: TruAPIPermissionSubject) -> TruAPIStateOutcome {
        lock.withLock {
            let old = decisions[subject.key]
            guard old != granted else { return .done }
            decisions[subject.key] = granted
            if let problem = saveLocked("permissions.json", permissionsJSON()) {
                decisions[subject.key] = old
                return .failed(problem)
            }
            return .done
        }
    }

    public var storedDecisions: [(subject: String, granted: Bool)] {
        lock.withLock { decisions.keys.sorted().map { ($0, decisions[$0]!) } }
    }

    // MARK: - Notifications

    /// What adding a notification came to.
    public enum NotificationOutcome: Sendable, Equatable {
        case added(TruAPINotification)
        /// 64 are pending already (`ScheduleLimitReached`).
        case limitReached
        case failed(String)
    }

    /// Takes the next notification id (ids start at 1 and survive restarts) and, for a notification in the future,
    /// keeps it pending until it is delivered or cancelled.
    public func addNotification(text: String, deeplink: String?, scheduledAt: UInt64?, pendingUntilDelivered: Bool) -> NotificationOutcome {
        lock.withLock {
            if pendingUntilDelivered, pending.count >= Self.maximumPendingNotifications { return .limitReached }
            let id = nextNotificationID
            let notification = TruAPINotification(id: id, text: text, deeplink: deeplink, scheduledAt: scheduledAt)
            nextNotificationID = id == UInt32.max ? 1 : id + 1
            if pendingUntilDelivered { pending.append(notification) }
            if let problem = saveLocked("notifications.json", notificationsJSON()) {
                nextNotificationID = id
                if pendingUntilDelivered { pending.removeLast() }
                return .failed(problem)
            }
            return .added(notification)
        }
    }

    /// Removes a pending notification (delivered or cancelled); nil when none has that id (cancel is idempotent).
    @discardableResult
    public func removeNotification(_ id: UInt32) -> TruAPINotification? {
        lock.withLock {
            guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
            let removed = pending.remove(at: index)
            // A failed save leaves it delivered or cancelled in this run; a restart may deliver it once more.
            _ = saveLocked("notifications.json", notificationsJSON())
            return removed
        }
    }

    public var pendingNotifications: [TruAPINotification] { lock.withLock { pending } }

    // MARK: - Files

    /// Writes one file atomically; the reason when it failed. Caller holds the lock, so files land in the order
    /// the changes were made.
    private func saveLocked(_ name: String, _ json: JSONValue) -> String? {
        guard let directory else { return nil }
        do {
            try AtomicFile.write(json.serialized() + "\n", to: directory + "/" + name, mode: 0o600)
            return nil
        } catch {
            return "cannot save the bridge state: \(error.description)"
        }
    }

    private func storageJSON() -> JSONValue {
        var object = JSONObject()
        for key in entries.keys.sorted() { object.append(key, .string("0x" + Hex.encode(entries[key]!))) }
        return .object(["version": 1, "entries": .object(object)])
    }

    private func permissionsJSON() -> JSONValue {
        var object = JSONObject()
        for key in decisions.keys.sorted() { object.append(key, .string(decisions[key]! ? "authorized" : "denied")) }
        return .object(["version": 1, "decisions": .object(object)])
    }

    private func notificationsJSON() -> JSONValue {
        let items: [JSONValue] = pending.map { notification in
            var object = JSONObject()
            object.append("id", .int(notification.id))
            object.append("text", .string(notification.text))
            object.append("deeplink", notification.deeplink.map(JSONValue.string) ?? .null)
            object.append("scheduled_at", notification.scheduledAt.map { .string(String($0)) } ?? .null)
            return .object(object)
        }
        return .object(["version": 1, "next_id": .int(nextNotificationID), "pending": .array(items)])
    }

    private func load() throws(TruAPIError) {
        guard let directory else { return }
        func file(_ name: String) throws(TruAPIError) -> (JSONObject, String)? {
            let path = directory + "/" + name
            let bytes: [UInt8]
            switch LocalFile.read(path, limit: Self.maximumFileBytes) {
            case .success(let read): bytes = read
            case .failure(.notFound): return nil
            case .failure(let failure): throw TruAPIError(.configuration, "state file \(path): cannot read it (\(failure))")
            }
            let json: JSONValue
            do { json = try JSONValue.parse(bytes, limits: JSONLimits(maxDepth: 8, maxBytes: Self.maximumFileBytes)) } catch {
                throw TruAPIError(.configuration, "state file \(path): \(error.description)")
            }
            guard let object = json.objectValue, json["version"]?.int64Value == 1 else {
                throw TruAPIError(.configuration, "state file \(path): at $: expected an object with \"version\": 1")
            }
            return (object, path)
        }
        func damaged(_ path: String, _ field: String, _ problem: String) -> TruAPIError {
            TruAPIError(.configuration, "state file \(path): at \(field): \(problem)")
        }
        if let (object, path) = try file("storage.json") {
            guard let stored = object["entries"]?.objectValue else { throw damaged(path, "$.entries", "expected an object") }
            for (key, value) in stored {
                guard let hex = value.stringValue, let bytes = try? Hex.decode(hex, allowPrefix: true) else {
                    throw damaged(path, "$.entries[\(JSONValue.string(key).serialized())]", "expected 0x-prefixed hex")
                }
                entries[key] = bytes
                storedBytes += bytes.count + key.utf8.count
            }
        }
        if let (object, path) = try file("permissions.json") {
            guard let stored = object["decisions"]?.objectValue else { throw damaged(path, "$.decisions", "expected an object") }
            for (key, value) in stored {
                guard TruAPIPermissionSubject(key: key) != nil, let word = value.stringValue, word == "authorized" || word == "denied" else {
                    throw damaged(path, "$.decisions[\(JSONValue.string(key).serialized())]", "expected \"authorized\" or \"denied\" for a known subject")
                }
                decisions[key] = word == "authorized"
            }
        }
        if let (object, path) = try file("notifications.json") {
            guard let next = object["next_id"]?.int64Value, let nextID = UInt32(exactly: next), nextID >= 1 else {
                throw damaged(path, "$.next_id", "expected a number from 1 to 4294967295")
            }
            nextNotificationID = nextID
            for (index, item) in (object["pending"]?.arrayValue ?? []).enumerated() {
                let field = "$.pending[\(index)]"
                guard let id = item["id"]?.int64Value.flatMap(UInt32.init(exactly:)), let text = item["text"]?.stringValue else {
                    throw damaged(path, field, "expected id and text")
                }
                let scheduled = item["scheduled_at"]?.stringValue.flatMap { UInt64($0) }
                pending.append(TruAPINotification(id: id, text: text, deeplink: item["deeplink"]?.stringValue, scheduledAt: scheduled))
            }
        }
    }
}
