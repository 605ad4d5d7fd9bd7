import OmniCandid
import OmniIC

/// The Candid interface a generated file was written from, as `.did` text embedded in the file and parsed once.
///
/// Arguments are encoded and replies decoded at this interface's method types, so the Candid subtyping rules apply
/// to every reply: extra record fields are skipped, absent optional ones read as null, `nat` reads as `int`,
/// fixed-width numbers are not widened, and a variant case the interface does not know is an error naming it.
public final class CandidBindingInterface: Sendable {
    private let parsed: Result<CandidInterface, CandidError>

    /// Parses `text` (once); a failure is reported by every later `interface()`.
    public init(text: String) {
        parsed = Result { () throws(CandidError) in try CandidInterface.parse(text, file: "the embedded interface") }
    }

    /// The parsed interface, or an `.interface` error when the text does not parse.
    public func interface() throws(CandidBindingError) -> CandidInterface {
        switch parsed {
        case .success(let interface): return interface
        case .failure(let error): throw CandidBindingError(.interface, error.description)
        }
    }
}

/// One canister behind a generated client: the verified `ICCanisterClient` and the interface its values are
/// encoded and decoded with. Generated methods call `query`, `call` or `submit`, then convert the results.
public struct CanisterBinding: Sendable {
    /// The verified byte-level client: for calls the interface does not describe.
    public let client: ICCanisterClient
    /// The interface values are encoded and decoded with.
    public let interface: CandidBindingInterface

    /// Refuses an agent with verification off: generated clients return verified answers only.
    public init(agent: ICAgent, canister: Principal, interface: CandidBindingInterface) throws(ICError) {
        client = try ICCanisterClient(agent: agent, canister: canister)
        self.interface = interface
    }

    /// The canister called.
    public var canister: Principal { client.canister }

    /// A query (or composite query): the reply's values at the method's result types.
    public func query(_ method: String, _ arguments: [CandidValue], signer: (any ICSigner)?,
                      options: ICRequestOptions) throws -> [CandidValue] {
        let interface = try interface.interface()
        let arg = try interface.encodeArguments(arguments, method: method)
        return try results(of: method, try client.query(method, arg: arg, signer: signer, options: options), in: interface)
    }

    /// An update call, waited for: the reply's values at the method's result types.
    public func call(_ method: String, _ arguments: [CandidValue], signer: any ICSigner,
                     options: ICRequestOptions) throws -> [CandidValue] {
        let interface = try interface.interface()
        let arg = try interface.encodeArguments(arguments, method: method)
        return try results(of: method, try client.call(method, arg: arg, signer: signer, options: options), in: interface)
    }

    /// A one-way call: the request id once accepted (one-way methods never reply).
    public func submit(_ method: String, _ arguments: [CandidValue], signer: any ICSigner,
                       options: ICRequestOptions) throws -> RequestID {
        let interface = try interface.interface()
        let arg = try interface.encodeArguments(arguments, method: method)
        switch try client.submit(method, arg: arg, signer: signer, options: options) {
        case .accepted(let requestID): return requestID
        case .rejected(let reject): throw CanisterBinding.rejection(reject, method: method)
        }
    }

    private func results(of method: String, _ answer: ICCanisterAnswer, in interface: CandidInterface) throws -> [CandidValue] {
        switch answer {
        case .replied(let bytes):
            return try interface.decodeResults(bytes, method: method)
        case .rejected(let reject):
            throw CanisterBinding.rejection(reject, method: method)
        case .done:
            throw CandidBindingError(.noReply, "the call completed, but its reply is no longer available", method: method)
        }
    }

    static func rejection(_ reject: Reject, method: String) -> CandidBindingError {
        let how = reject.certified ? "" : " (not certified: the replica's word only)"
        return CandidBindingError(.rejected, "\(reject)\(how)", method: method, reject: reject)
    }

    /// The result at `index` as `T` (generated code asks for each result of the method's type).
    public static func result<T: CandidConvertible>(_ values: [CandidValue], _ index: Int, of method: String) throws(CandidBindingError) -> T {
        guard index < values.count else {
            throw CandidBindingError(.typeMismatch, "the reply has \(values.count) values, not \(index + 1)", method: method)
        }
        do throws(CandidBindingError) { return try T(candid: values[index]) } catch {
            var located = error.inside("result \(index + 1)")
            located.method = method
            throw located
        }
    }
}
