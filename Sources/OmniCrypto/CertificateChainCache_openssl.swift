internal import COpenSSL
internal import COmniShims
import Synchronization

/// Remembers, across many leaves, that one intermediate chains to one set of roots, so a batch of leaves issued by
/// the same intermediate (every App Attest credential certificate) pays for the intermediate's signature once.
///
/// `verifyChain` answers exactly what `Certificate.verifyChain` answers for the same arguments:
/// - an entry is made only after a full `Certificate.verifyChain` succeeded with the path leaf → intermediate →
///   root, keyed by the exact DER of the intermediate and of every root;
/// - on a hit, the leaf is verified by OpenSSL against the intermediate alone (a partial chain, at the line's time:
///   the leaf's signature, both validity periods, the intermediate's CA constraints), and the root's validity period
///   is checked at that time too. What is skipped — the intermediate's signature by the root and the root's own
///   constraints — does not depend on the leaf or the time;
/// - anything but success on the fast path runs the full check, so every refusal, its code and its message are the
///   full check's.
/// Roots with name or policy constraints (which would judge each leaf) are never cached.
public final class CertificateChainCache: Sendable {
    /// Distinct (intermediate, roots) pairs kept; a batch has one or a few. When full the cache starts over.
    public static let capacity = 64

    private struct Key: Hashable {
        let intermediate: [UInt8]
        let roots: [[UInt8]]
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let parsed = Mutex<[[UInt8]: Certificate]>([:])

    public init() {}

    /// Number of verified (intermediate, roots) pairs held (for tests).
    public var count: Int { entries.withLock { $0.count } }

    /// The certificate for `der`, parsed once per distinct DER (for intermediates, which repeat across a batch).
    /// Equal to `Certificate(derRepresentation:)` of the same bytes; parse failures are not remembered.
    public func certificate(der: [UInt8]) throws(CryptoError) -> Certificate {
        if let cached = parsed.withLock({ $0[der] }) { return cached }
        let certificate = try Certificate(derRepresentation: der)
        parsed.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[der] = certificate
        }
        return certificate
    }

    /// `Certificate.verifyChain(leaf:intermediates:roots:at:)`, faster when the one intermediate was seen before.
    public func verifyChain(leaf: Certificate, intermediates: [Certificate], roots: [Certificate],
                            at time: Int64) throws(CryptoError) -> [Certificate] {
        guard intermediates.count == 1, let intermediate = intermediates.first else {
            return try Certificate.verifyChain(leaf: leaf, intermediates: intermediates, roots: roots, at: time)
        }
        let key = Key(intermediate: intermediate.derRepresentation, roots: roots.map(\.derRepresentation))
        if let entry = entries.withLock({ $0[key] }), let chain = entry.fastPath(leaf: leaf, at: time) {
            return chain
        }
        let chain = try Certificate.verifyChain(leaf: leaf, intermediates: intermediates, roots: roots, at: time)
        if chain.count == 3, chain[1] == intermediate, let root = roots.first(where: { $0 == chain[2] }),
           Self.cacheable(intermediate: intermediate, root: root), let entry = Entry(intermediate: intermediate, root: root) {
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll() }
                entries[key] = entry
            }
        }
        return chain
    }

    /// Name constraints and policy constraints of the root apply to each leaf, so such roots are always checked in
    /// full; so is an intermediate named like the root (the path OpenSSL builds could then differ by leaf).
    private static func cacheable(intermediate: Certificate, root: Certificate) -> Bool {
        let perLeafExtensions: Set<String> = ["2.5.29.30", "2.5.29.36", "2.5.29.54"]
        return !root.extensions.contains { perLeafExtensions.contains($0.oid) }
            && !intermediate.extensions.contains { perLeafExtensions.contains($0.oid) }
            && intermediate.subject != root.subject
    }

    /// A verified intermediate (as the only trust anchor of its own store) and the root it chained to.
    private final class Entry: @unchecked Sendable {
        let intermediate: Certificate
        let root: Certificate
        /// X509_STORE is safe for concurrent verifications once filled.
        let store: OpaquePointer

        init?(intermediate: Certificate, root: Certificate) {
            guard let store = X509_STORE_new() else { return nil }
            guard X509_STORE_add_cert(store, intermediate.storage.pointer) == 1 else {
                X509_STORE_free(store)
                clearOpenSSLErrors()
                return nil
            }
            self.intermediate = intermediate
            self.root = root
            self.store = store
        }

        deinit { X509_STORE_free(store) }

        /// The verified chain when `leaf` verifies under the intermediate at `time` and the root is valid then;
        /// nil for anything else (the caller then runs the full check, which names the failure).
        func fastPath(leaf: Certificate, at time: Int64) -> [Certificate]? {
            // OpenSSL's rule (see Certificate.verifyChain): valid for notBefore ≤ time < notAfter.
            guard root.notBefore <= time, time < root.notAfter else { return nil }
            clearOpenSSLErrors()
            defer { clearOpenSSLErrors() }
            guard let context = X509_STORE_CTX_new() else { return nil }
            defer { X509_STORE_CTX_free(context) }
            guard X509_STORE_CTX_init(context, store, leaf.storage.pointer, nil) == 1 else { return nil }
            let parameters = X509_STORE_CTX_get0_param(context)
            X509_VERIFY_PARAM_set_time(parameters, time_t(time))
            // The intermediate is a trust anchor here only because a full check made it one (see the type's rules).
            X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
            guard X509_verify_cert(context) == 1, let stack = X509_STORE_CTX_get0_chain(context),
                  omni_sk_x509_num(stack) == 2,
                  omni_sk_x509_value(stack, 0) == leaf.storage.pointer,
                  omni_sk_x509_value(stack, 1) == intermediate.storage.pointer
            else { return nil }
            return [leaf, intermediate, root]
        }
    }
}
