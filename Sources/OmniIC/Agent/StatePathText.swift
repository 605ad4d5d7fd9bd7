import OmniCandid
import OmniCodec

extension StatePath {
    /// Reads a path as people write it: `/canister/<principal>/metadata/candid:service`, `/time`,
    /// `/request_status/<64 hex>/reply`. Each label is a textual principal (checksum verified) → its bytes,
    /// `0x` + hex or exactly 64 hex digits (a request id, as `description` prints it) → those bytes, anything else
    /// → its UTF-8. A leading `/` is optional; empty labels (`//`) are refused, except that `/` alone is the root.
    public init(text: String) throws(ICError) {
        var body = Substring(text.trimmingWhitespace())
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.isEmpty {
            self.init([[UInt8]]())
            return
        }
        var labels: [[UInt8]] = []
        for (index, part) in body.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            guard !part.isEmpty else {
                throw ICError(.invalidArgument, "path \(Principal.quotedSample(text)) has an empty label (position \(index + 1))")
            }
            labels.append(try StatePath.label(String(part), in: text))
        }
        guard labels.count <= StatePath.maxLabels else {
            throw ICError(.invalidArgument, "path \(Principal.quotedSample(text)) has more than \(StatePath.maxLabels) labels")
        }
        self.init(labels)
    }

    private static func label(_ part: String, in text: String) throws(ICError) -> [UInt8] {
        if part.hasPrefix("0x") || part.hasPrefix("0X") {
            do { return try Hex.decode(part.dropFirst(2)) } catch {
                throw ICError(.invalidArgument, "path \(Principal.quotedSample(text)): label \(Principal.quotedSample(part)): \(error.summary)")
            }
        }
        if part.utf8.count == 64, let bytes = try? Hex.decode(part) { return bytes }
        if part.contains("-"), let principal = try? Principal(icText: part) { return principal.bytes }
        return Array(part.utf8)
    }
}
