import FoundationEssentials

/// Registrations per peer address: a token bucket of `perMinute` tokens, refilled evenly over a minute, one token
/// per registration. Addresses whose bucket is full again are forgotten, so the table holds only recent callers.
struct RegistrationRateLimiter {
    let perMinute: Int
    private var buckets: [String: (tokens: Double, updated: Date)] = [:]
    /// Past this many remembered addresses, full buckets are swept before a new one is added.
    private let sweepThreshold = 4096

    init(perMinute: Int) { self.perMinute = max(1, perMinute) }

    /// True (and a token is spent) if `address` may register now.
    mutating func allow(_ address: String, now: Date) -> Bool {
        if buckets[address] == nil, buckets.count >= sweepThreshold { forgetIdle(now: now) }
        var bucket = buckets[address] ?? (Double(perMinute), now)
        bucket.tokens = refilled(bucket, now: now)
        bucket.updated = now
        guard bucket.tokens >= 1 else {
            buckets[address] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[address] = bucket
        return true
    }

    /// Drops the addresses whose bucket has refilled completely (they are as if never seen).
    mutating func forgetIdle(now: Date) {
        buckets = buckets.filter { refilled($0.value, now: now) < Double(perMinute) }
    }

    var rememberedAddresses: Int { buckets.count }

    private func refilled(_ bucket: (tokens: Double, updated: Date), now: Date) -> Double {
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        return min(Double(perMinute), bucket.tokens + elapsed * Double(perMinute) / 60)
    }

    /// The host part of `address:port` / `[v6]:port`: one budget per machine, whatever port it calls from.
    static func host(of remoteAddress: String) -> String {
        if remoteAddress.hasPrefix("["), let close = remoteAddress.firstIndex(of: "]") {
            return String(remoteAddress[remoteAddress.index(after: remoteAddress.startIndex)..<close])
        }
        if let colon = remoteAddress.lastIndex(of: ":") { return String(remoteAddress[..<colon]) }
        return remoteAddress
    }
}
