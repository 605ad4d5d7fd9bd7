import OmniCodec
import OmniCrypto

/// An App Attest fraud-metric receipt: a CMS SignedData whose content is a SET OF SEQUENCE {INTEGER type,
/// INTEGER version, OCTET STRING value}. Fields are kept as Apple sends them (times as RFC 3339 text).
public struct AppAttestReceipt: Sendable {
    /// The field numbers Apple documents.
    public enum FieldType: UInt64, Sendable {
        case appID = 2, attestedCertificate = 3, clientHash = 4, token = 5, receiptType = 6, environment = 7
        case creationTime = 12, riskMetric = 17, notBefore = 19, expirationTime = 21
    }

    static let maximumFieldCount = 64

    public let message: CMSSignedData
    /// Every field in payload order: type number and raw value.
    public let fields: [(type: UInt64, value: [UInt8])]

    public var appID: String? { text(.appID) }
    /// The attested credential certificate (DER).
    public var attestedCertificate: [UInt8]? { value(.attestedCertificate) }
    public var clientHash: [UInt8]? { value(.clientHash) }
    public var token: String? { text(.token) }
    /// "ATTEST" (the receipt inside an attestation) or "RECEIPT" (a refreshed one from Apple's server).
    public var receiptType: String? { text(.receiptType) }
    /// "production" or "sandbox".
    public var environment: String? { text(.environment) }
    public var creationTime: String? { text(.creationTime) }
    public var riskMetric: UInt64? { text(.riskMetric).flatMap { UInt64($0) } }
    public var notBefore: String? { text(.notBefore) }
    public var expirationTime: String? { text(.expirationTime) }

    public func value(_ type: FieldType) -> [UInt8]? { fields.first(where: { $0.type == type.rawValue })?.value }

    /// A text field; nil when absent or not UTF-8 (a field that does not read as text is not the expected value).
    private func text(_ type: FieldType) -> String? {
        value(type).flatMap { try? UTF8Validation.string($0) }
    }

    /// Parses the CMS message and its payload. Throws a message for the first thing that is not a receipt.
    init(_ bytes: [UInt8]) throws(Refusal) {
        do {
            message = try CMSSignedData(berRepresentation: bytes)
        } catch {
            throw Refusal(.badReceipt, "receipt is not a CMS SignedData message: \(error.message)")
        }
        var items: DERReader
        do throws(CodecError) {
            var outer = try DERReader(message.content)
            items = try outer.readConstructed(tag: 0x31)
            try outer.requireEnd()
        } catch {
            throw Refusal(.badReceipt, "receipt payload is not one DER SET: \(error)")
        }
        var fields: [(type: UInt64, value: [UInt8])] = []
        while !items.isAtEnd {
            guard fields.count < Self.maximumFieldCount else {
                throw Refusal(.badReceipt, "receipt payload has more than \(Self.maximumFieldCount) fields")
            }
            do throws(CodecError) {
                var field = try items.readConstructed(tag: 0x30)
                let type = try field.readUInt64()
                _ = try field.read(tag: 0x02)  // version
                let value = try field.read(tag: 0x04)
                try field.requireEnd()
                fields.append((type, value))
            } catch {
                throw Refusal(.badReceipt, "receipt field \(fields.count) is not SEQUENCE {INTEGER, INTEGER, OCTET STRING}: \(error)")
            }
        }
        self.fields = fields
    }
}

/// What a receipt check found. A receipt never decides an attestation on its own unless the caller requires it.
public struct ReceiptAppraisal: Sendable {
    /// The receipt as given (kept with an enrolled key for a later refresh with Apple).
    public let bytes: [UInt8]
    public var byteCount: Int { bytes.count }
    /// Every problem found, in check order; empty when the receipt is valid.
    public let problems: [String]
    public let signatureValid: Bool
    public let chainValid: Bool
    /// Subjects of the verified signer chain, signer first (empty when the chain did not verify).
    public let signerChain: [String]
    public let receipt: AppAttestReceipt?
    /// SHA256 of the public key point of the receipt's attested certificate (the key id it speaks for).
    public let attestedKeyID: [UInt8]?
    /// Seconds between the receipt's creation time and the verification time.
    public let ageSeconds: Int64?

    public var isValid: Bool { problems.isEmpty }
}

/// Whom a receipt's signer must chain to. Apple's receipts: Apple Root CA - G3, through exactly the intermediate
/// Apple publishes for App Attest receipts (pinned by fingerprint), to a signer with the documented subject. Trusting
/// anything under G3 would accept any certificate Apple's root ever issued (Apple Pay, Wallet, …) as a receipt signer.
public struct ReceiptTrust: Sendable {
    public let roots: [Certificate]
    /// SHA-256 of the DER of the one certificate allowed between the signer and the root; nil allows any path.
    public let intermediateFingerprint: [UInt8]?
    /// The signer certificate's subject as `Certificate.subject` writes it (RFC 4514); nil allows any.
    public let signerSubject: String?

    public init(roots: [Certificate], intermediateFingerprint: [UInt8]?, signerSubject: String?) {
        self.roots = roots
        self.intermediateFingerprint = intermediateFingerprint
        self.signerSubject = signerSubject
    }

    /// Apple's receipt PKI with the pins from Vendor/apple (see Vendor/SOURCES.md).
    public static let apple = ReceiptTrust(roots: [AppleRoots.rootCAG3],
                                           intermediateFingerprint: AppleRoots.receiptIntermediateFingerprintBytes,
                                           signerSubject: AppleRoots.receiptSignerSubject)

    /// Any chain to `roots`, without pins: for test roots, whose intermediates cannot be Apple's.
    public static func anchored(_ roots: [Certificate]) -> ReceiptTrust {
        ReceiptTrust(roots: roots, intermediateFingerprint: nil, signerSubject: nil)
    }

    /// Why a verified chain (signer first, root last) is not one this trust accepts; nil when it is.
    func problem(with chain: [Certificate]) -> String? {
        if let signerSubject, chain.first?.subject != signerSubject {
            return "receipt signer is '\(chain.first?.subject ?? "?")', not the pinned '\(signerSubject)'"
        }
        if let intermediateFingerprint {
            guard chain.count == 3 else {
                return "receipt signer chain has \(chain.count) certificates; the pinned path is signer → intermediate → root"
            }
            guard chain[1].fingerprintSHA256 == intermediateFingerprint else {
                return "receipt intermediate '\(chain[1].subject)' has SHA-256 \(Hex.encode(chain[1].fingerprintSHA256)), not the pinned \(Hex.encode(intermediateFingerprint))"
            }
        }
        return nil
    }
}

public enum ReceiptAppraiser {
    /// Apple's receipt steps: the CMS signature, the signer chain to the trusted root at `time` (with `trust`'s pins),
    /// the app id in field 2, and the attested key in field 3 equal to `expectedKeyID` when given. Staleness
    /// (creation time older than five minutes at `time`) is reported in `ageSeconds`, not as a problem: offline
    /// appraisal of stored evidence is the common case here.
    public static func appraise(_ bytes: [UInt8], trust: ReceiptTrust = .apple, at time: Int64,
                                appID: String?, expectedKeyID: [UInt8]?) -> ReceiptAppraisal {
        let receipt: AppAttestReceipt
        do {
            receipt = try AppAttestReceipt(bytes)
        } catch {
            return ReceiptAppraisal(bytes: bytes, problems: [error.message], signatureValid: false, chainValid: false,
                                    signerChain: [], receipt: nil, attestedKeyID: nil, ageSeconds: nil)
        }
        var problems: [String] = []
        var signatureValid = false
        var chainValid = false
        var chain: [String] = []
        do {
            let signers = try receipt.message.verifySignatures()
            signatureValid = true
            chainValid = true
            for signer in signers {
                let others = receipt.message.certificates.filter { $0 != signer }
                do {
                    let verified = try Certificate.verifyChain(leaf: signer, intermediates: others, roots: trust.roots, at: time)
                    if let problem = trust.problem(with: verified) {
                        problems.append(problem)
                        chainValid = false
                    } else if chain.isEmpty {
                        chain = verified.map(\.subject)
                    }
                } catch {
                    problems.append("receipt signer chain: \(error.message)")
                    chainValid = false
                }
            }
            if !chainValid { chain = [] }
        } catch {
            problems.append("receipt signature: \(error.message)")
        }
        if let appID, receipt.appID != appID {
            problems.append("receipt app id (field 2) is \(receipt.appID.map { "'\($0)'" } ?? "missing"), expected '\(appID)'")
        }
        var attestedKeyID: [UInt8]?
        if let der = receipt.attestedCertificate, let certificate = try? Certificate(derRepresentation: der),
           let key = try? certificate.ecdsaPublicKey() {
            attestedKeyID = AttestPublicKey.keyID(key)
        }
        if let expectedKeyID {
            if let attestedKeyID {
                if !ConstantTime.equals(attestedKeyID, expectedKeyID) {
                    problems.append("receipt attested key (field 3) is key id \(AttestBase64.encode(attestedKeyID)), not \(AttestBase64.encode(expectedKeyID))")
                }
            } else {
                problems.append("receipt has no readable attested certificate (field 3)")
            }
        }
        let age = receipt.creationTime.flatMap { RFC3339.parse($0) }.map { time - $0.seconds }
        return ReceiptAppraisal(bytes: bytes, problems: problems, signatureValid: signatureValid,
                                chainValid: chainValid, signerChain: chain, receipt: receipt,
                                attestedKeyID: attestedKeyID, ageSeconds: age)
    }
}
