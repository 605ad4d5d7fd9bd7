// OmniIC — the Internet Computer client core: everything `omni ic …` needs except HTTP.
//
// How an agent uses it (every step throws `ICError`; `kind` picks the exit code, `reason` says which check failed):
//
// Identity
//   let store = IdentityStore(directories: Directories(environment: env))
//   let identity = try store.loadDefault() ?? .anonymous            // or ICIdentity(pem:), store.load(name)
//
// Query (verified)
//   let ecid = try EffectiveCanisterID.resolve(canister: id, method: m, arg: arg)   // route + range check target
//   let request = try ICRequest(.query(canister: id, method: m, arg: arg), sender: identity.principal,
//                               ingressExpiry: IngressExpiry.expiry(now: IngressExpiry.currentTime(), clockSkew: skew))
//   let body = try identity.envelope(for: request).encoded()        // POST /api/v3/canister/<ecid>/query
//       // a session is refused here when its targets miss DelegationTarget.of(request.body) (kind .unauthorized)
//   let response = try QueryResponse(decoding: responseBody)
//   let subnet: SubnetInfo = cached or:
//       anonymous read_state ["subnet"] for ecid → ICCertificate(decoding:) → .verify(scope: .canister(ecid),
//       rootKey:, freshness: .now()) → .subnetInfo(), which must `serves(ecid)`   // cache only verified facts, 1 h
//   try response.verify(requestID: request.requestID, subnet: subnet)
//       // reason .nodeSignature → refresh the subnet keys once and retry the verification, then fail
//
// Call
//   v3/v4 200 → CallResponse(decoding:) → .certificate(bytes) → ICCertificate(decoding:).verify(scope:
//   .canister(ecid), …).requestStatus(request.requestID); .rejected(reject) is an uncertified reject.
//   202 → poll read_state with paths [StatePath.requestStatus(id)] until `RequestStatus.isTerminal`.
//   The read_state certificate also gives the replica's time: ClockSkew.skew(replicaTime: verified.time, …).
//   An expiry error body claims one too (ClockSkew.replicaTime(fromExpiryError:)), unauthenticated: believe it only
//   within the time tolerance, sign only reads again with it, and never sign a refused call again until its
//   certified request status is unknown and certified time is past its expiry (ICAgent does all of this).
//
// Read state
//   .readState(paths:) request → ReadStateResponse.certificate(from:) → ICCertificate → verify(scope:
//   .canister(ecid) or .subnet(esid)) → VerifiedCertificate.lookup(path) (Found / Absent / Unknown / Error).
//
// Routes and retries
//   ICAgent.route(body, effectiveCanister:, subnet:) → CertificateScope: where a request goes (`/api/v…/canister/<id>`
//   or `/subnet/<id>`) is what its answer is verified for. RetryPolicy says when the same bytes are sent again
//   (429/502/503/504, broken connections); a call is never signed again — an unanswered one is looked up by id.
//
// Offline certificate verification (`omni ic certificate verify`)
//   try ICCertificate(decoding: bytes).verify(scope: .canister(id), rootKey: .mainnet or ICRootKey(hex:),
//                                             freshness: .at(try ICTime.parse(atText)))
//
// Root keys: `ICRootKey.mainnet` is pinned (Vendor/SOURCES.md); a local replica's comes from `--root-key`
// (`ICRootKey(hex:)`) or, for loopback URLs only, from `ReplicaStatus(decoding:).rootKey`. Whenever a status's
// key is shown, show `ReplicaStatus.rootKeyTrust(network:trusted:)` with it (pinned, matches, mismatch, unverified).
//
// Sessions: `DelegatedSession.create(root:lifetime:targets:)`, stored with `IdentityStore.save`; chains issued
// elsewhere: `DelegatedSession(sessionKey:chain: DelegationChain(jsonText:))`. A session file from outside is read
// with `DelegatedSession(verifiedSessionFile:at:rootKey:)` (chain signatures and expiry checked), never trusted as is. `DelegationChain.verify` and
// `ICEnvelope.verifySender` check chains and envelopes the way the IC does (for `omni ic send` and tests).
