/// The IC's domain separators: a length byte followed by the ASCII tag, prepended to what is signed or hashed.
public enum DomainSeparator {
    /// `sender_sig` = Sign(0x0A "ic-request" ‖ request id).
    public static let request = separator("ic-request")
    /// A sender delegation's signature = Sign(0x1A "ic-request-auth-delegation" ‖ hash_of_map(delegation)).
    public static let delegation = separator("ic-request-auth-delegation")
    /// A query response node signature = Ed25519(0x0B "ic-response" ‖ hash_of_map(response)).
    public static let response = separator("ic-response")
    /// A certificate's BLS signature = BLS(0x0D "ic-state-root" ‖ root hash).
    public static let stateRoot = separator("ic-state-root")
    /// `sender_info` canister signature = Sign(0x0E "ic-sender-info" ‖ …).
    public static let senderInfo = separator("ic-sender-info")

    static let hashTreeEmpty = separator("ic-hashtree-empty")
    static let hashTreeFork = separator("ic-hashtree-fork")
    static let hashTreeLabeled = separator("ic-hashtree-labeled")
    static let hashTreeLeaf = separator("ic-hashtree-leaf")

    static func separator(_ tag: String) -> [UInt8] {
        let bytes = Array(tag.utf8)
        return [UInt8(bytes.count)] + bytes
    }
}
