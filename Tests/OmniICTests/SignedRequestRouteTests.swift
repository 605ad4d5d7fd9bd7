import OmniCandid
import OmniCodec
import OmniCrypto
import Testing
@testable import OmniIC

/// A signed request file's route (issue 12, subnet-routed endpoints): an effective canister id or a subnet, never
/// both, and a subnet only for what the subnet endpoints take.
struct SignedRequestRouteTests {
    static let identity = ICIdentity(ed25519: Ed25519.PrivateKey())
    static let subnet = try! Principal(icText: "tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe")

    static func envelope(_ body: ICRequest.Body) throws -> ICEnvelope {
        let request = try ICRequest(body, sender: identity.principal, ingressExpiry: 1_800_000_000_000_000_000, nonce: [7])
        return try identity.envelope(for: request, at: 1_700_000_000_000_000_000)
    }

    static func creation() throws -> ICEnvelope {
        try envelope(.call(canister: .managementCanister, method: "provisional_create_canister_with_cycles", arg: try Candid.encode([])))
    }

    @Test func aSubnetRouteRoundTripsWithoutAnEffectiveCanisterID() throws {
        let file = try SignedRequestFile(envelope: try Self.creation(), route: .subnet(Self.subnet))
        #expect(file.subnet == Self.subnet && file.effectiveCanisterID == nil)
        #expect(file.json["subnet_id"]?.stringValue == Self.subnet.text)
        // Left out so that a reader unaware of subnet_id refuses the file instead of routing it by canister.
        #expect(file.json["effective_canister_id"] == nil)
        let read = try SignedRequestFile(text: file.text)
        #expect(read == file && read.route == .subnet(Self.subnet))
        let query = try SignedRequestFile(envelope: try Self.envelope(.query(canister: .managementCanister, method: "list_canisters",
                                                                              arg: try Candid.encode([]))), route: .subnet(Self.subnet))
        #expect(try SignedRequestFile(text: query.text).route == .subnet(Self.subnet))
    }

    @Test func bothRoutesAreRefused() throws {
        let file = try SignedRequestFile(envelope: try Self.creation(), route: .subnet(Self.subnet))
        guard case .object(var object) = file.json else { Issue.record("not an object"); return }
        object["effective_canister_id"] = .string("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let error = expectICError(.malformed, "two routes") { _ = try SignedRequestFile(json: .object(object)) }
        #expect(error?.location == "subnet_id" && error?.message.contains("two routes") == true, "\(String(describing: error))")
    }

    @Test func onlyWhatTheSubnetEndpointsTakeGoesToASubnet() throws {
        let ledger = try Principal(icText: "ryjl3-tyaaa-aaaaa-aaaba-cai")
        let refused: [ICRequest.Body] = [
            .query(canister: ledger, method: "icrc1_balance_of", arg: try Candid.encode([])),
            .call(canister: .managementCanister, method: "install_code", arg: try Candid.encode([])),
            .query(canister: .managementCanister, method: "canister_status", arg: try Candid.encode([])),
        ]
        for body in refused {
            let error = expectICError(.malformed, "\(body)") { _ = try SignedRequestFile(envelope: try Self.envelope(body), route: .subnet(Self.subnet)) }
            #expect(error?.location == "subnet_id" && error?.message.contains("cannot go to subnet") == true, "\(String(describing: error))")
        }
        // A subnet's own state may be read through its route.
        _ = try SignedRequestFile(envelope: try Self.envelope(.readState(paths: [.time])), route: .subnet(Self.subnet))
    }
}
