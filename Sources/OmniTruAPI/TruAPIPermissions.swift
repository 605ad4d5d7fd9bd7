/// What a person is shown before approving a request that carries data (a payload to sign): `details` is the
/// decoded request, for the terminal prompt only; `card` is the same without the request's contents, safe for
/// the log (`--auto-accept` prints it per approval).
public struct TruAPIReview: Sendable, Equatable {
    public var title: String
    public var details: [String]
    public var card: [String]

    public init(title: String, details: [String], card: [String]) {
        self.title = title
        self.details = details
        self.card = card
    }
}

/// A question for the person running the bridge.
public struct TruAPIPrompt: Sendable, Equatable {
    public let productID: TruAPIProductID
    /// What is asked for (several domains of one `Remote { domains }` request are asked together).
    public let subjects: [TruAPIPermissionSubject]
    /// The decoded request, when there is one to judge.
    public let review: TruAPIReview?

    public init(productID: TruAPIProductID, subjects: [TruAPIPermissionSubject], review: TruAPIReview? = nil) {
        self.productID = productID
        self.subjects = subjects
        self.review = review
    }

    public var question: String {
        if let review { return "\(productID.value) asks to \(review.title). Allow?" }
        return "\(productID.value) asks for \(subjects.map(\.description).joined(separator: ", ")). Allow?"
    }
}

/// Asks a person (the command layer's TTY prompt). Nil means no genuine answer — no terminal, a timeout, too many
/// prompts waiting, the bridge closing — which counts as a refusal and is not remembered.
public protocol TruAPIPrompter: Sendable {
    func ask(_ prompt: TruAPIPrompt) async -> Bool?
}

/// Decides permissions as the reference's permission model does (§6), with a policy instead of UI callbacks.
///
/// For each subject: `--deny-all` refuses; a policy `allow` or `deny` applies as written; a policy `prompt` takes
/// the user's earlier answer stored in the state, else asks (with `--auto-accept`: yes, reported as an approval);
/// a genuine answer is stored per product, no answer (no TTY, timeout) refuses and is not stored. A confirmation of
/// one request (`remember: false`: a signature, as the reference's `confirmUserAction`) is asked every time and
/// never stored. A request
/// covering several subjects (`Remote { domains }`) is granted only when all are; the undecided ones share one
/// prompt, and an empty list is refused.
public final class TruAPIPermissionBroker: Sendable {
    public let policy: TruAPIPolicy
    public let autoAccept: Bool
    public let denyAll: Bool
    private let productID: TruAPIProductID
    private let state: TruAPIBridgeState
    private let prompter: (any TruAPIPrompter)?
    private let onEvent: @Sendable (TruAPIBridgeEvent) -> Void

    public init(productID: TruAPIProductID, policy: TruAPIPolicy, state: TruAPIBridgeState, prompter: (any TruAPIPrompter)?,
                autoAccept: Bool = false, denyAll: Bool = false, onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void = { _ in }) {
        self.productID = productID
        self.policy = policy
        self.state = state
        self.prompter = prompter
        self.autoAccept = autoAccept
        self.denyAll = denyAll
        self.onEvent = onEvent
    }

    /// Whether every subject is granted. `mayPrompt` false checks without asking (navigation: a grant must exist);
    /// `remember` false neither uses nor stores earlier answers (each signature is confirmed by itself); `review`
    /// is what the prompt shows, and its card what an approval logs.
    public func resolve(_ subjects: [TruAPIPermissionSubject], mayPrompt: Bool = true, remember: Bool = true,
                        review: TruAPIReview? = nil) async -> Bool {
        let card = review?.card
        guard !subjects.isEmpty else {
            onEvent(.permission(subjects, granted: false, source: "empty_request", card: card))
            return false
        }
        if denyAll {
            onEvent(.permission(subjects, granted: false, source: "deny_all", card: card))
            return false
        }
        var undecided: [TruAPIPermissionSubject] = []
        var sources: Set<String> = []
        for subject in subjects {
            switch policy.decision(for: subject) {
            case .allow:
                sources.insert("policy")
            case .deny:
                onEvent(.permission(subjects, granted: false, source: "policy", card: card))
                return false
            case .prompt:
                switch remember ? state.decision(for: subject) : nil {
                case true?: sources.insert("stored")
                case false?:
                    onEvent(.permission(subjects, granted: false, source: "stored", card: card))
                    return false
                case nil: undecided.append(subject)
                }
            }
        }
        guard !undecided.isEmpty else {
            onEvent(.permission(subjects, granted: true, source: sources.sorted().joined(separator: "+"), card: card))
            return true
        }
        if autoAccept {
            onEvent(.permission(undecided, granted: true, source: "auto_accept", card: card))
            return true
        }
        guard mayPrompt, let prompter else {
            onEvent(.permission(undecided, granted: false, source: mayPrompt ? "no_prompt" : "not_granted", card: card))
            return false
        }
        guard let answer = await prompter.ask(TruAPIPrompt(productID: productID, subjects: undecided, review: review)) else {
            onEvent(.permission(undecided, granted: false, source: "no_answer", card: card))
            return false
        }
        if remember {
            for subject in undecided {
                if case .failed(let reason) = state.setDecision(answer, for: subject) { onEvent(.storageError(reason)) }
            }
        }
        onEvent(.permission(undecided, granted: answer, source: "prompt", card: card))
        return answer
    }
}
