/// Which frame of a method a discriminant names.
public enum TruAPIFrameKind: String, Sendable, CaseIterable {
    case request, response, start, stop, interrupt, receive

    /// Frames the product sends on a product-initiated method (the host acts on these and drops the others).
    public var isProductToHost: Bool { self == .request || self == .start || self == .stop }
}

/// One method of the wire table: its ids (append-only, never reused), its kind and the envelope types of its frames.
public struct TruAPIMethod: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// `request_id` → `response_id = request_id + 1`.
        case request
        /// `start_id`, `stop_id = +1`, `interrupt_id = +2`, `receive_id = +3`.
        case subscription
    }

    public enum Direction: String, Sendable {
        case productInitiated = "product-initiated"
        /// The host sends start and stop (ids `h:N`); the product sends receive and interrupt.
        case hostInitiated = "host-initiated"
    }

    /// `system_handshake`, `theme_subscribe`, …
    public let name: String
    public let kind: Kind
    public let direction: Direction
    /// `request_id` or `start_id`.
    public let firstID: UInt8
    /// The request (or start) envelope; nil when the method takes none (the host ignores those bytes).
    public let requestType: String?
    /// The Ok envelope of a request method (its V1 content is what a response carries); nil for a plain unit Ok.
    public let okType: String?
    /// The error envelope: a request's Domain error, or a typed subscription's interrupt error (nil: plain).
    public let errorType: String?
    /// The receive envelope of a subscription.
    public let itemType: String?
    /// The execution kind the method needs (`Worker` for chat), when it needs one.
    public let requiredExecution: String?

    public var requestID: UInt8 { firstID }
    public var responseID: UInt8 { firstID + 1 }
    public var startID: UInt8 { firstID }
    public var stopID: UInt8 { firstID + 1 }
    public var interruptID: UInt8 { firstID + 2 }
    public var receiveID: UInt8 { firstID + 3 }

    /// A subscription whose failures arrive as one typed interrupt (`Result<Subscription<…>, CallError<E>>`).
    public var isTypedSubscription: Bool { kind == .subscription && errorType != nil }

    /// The discriminant of each of this method's frames.
    public var discriminants: [(TruAPIFrameKind, UInt8)] {
        switch kind {
        case .request: [(.request, requestID), (.response, responseID)]
        case .subscription: [(.start, startID), (.stop, stopID), (.interrupt, interruptID), (.receive, receiveID)]
        }
    }

    public func discriminant(of frameKind: TruAPIFrameKind) -> UInt8? {
        discriminants.first { $0.0 == frameKind }?.1
    }

    static func request(_ name: String, _ id: UInt8, _ requestType: String?, ok: String?, error: String?,
                        execution: String? = nil) -> TruAPIMethod {
        TruAPIMethod(name: name, kind: .request, direction: .productInitiated, firstID: id, requestType: requestType,
                     okType: ok, errorType: error, itemType: nil, requiredExecution: execution)
    }

    static func subscription(_ name: String, _ id: UInt8, _ requestType: String?, item: String?, error: String?,
                             execution: String? = nil) -> TruAPIMethod {
        TruAPIMethod(name: name, kind: .subscription, direction: .productInitiated, firstID: id, requestType: requestType,
                     okType: nil, errorType: error, itemType: item, requiredExecution: execution)
    }

    static func hostSubscription(_ name: String, _ id: UInt8, _ requestType: String?, item: String?, error: String?,
                                 execution: String? = nil) -> TruAPIMethod {
        TruAPIMethod(name: name, kind: .subscription, direction: .hostInitiated, firstID: id, requestType: requestType,
                     okType: nil, errorType: error, itemType: item, requiredExecution: execution)
    }
}

/// The 69 methods of TrUAPI 0.9 (truapi 229bb23 `generated/wire_table.rs`). Ids 70-75 are retired, 174-255 free.
public enum TruAPIWireTable {
    public static let methods: [TruAPIMethod] = [
        .request("system_handshake", 0, "HostHandshakeRequest", ok: "HostHandshakeResponse", error: "HostHandshakeError"),
        .request("system_feature_supported", 2, "HostFeatureSupportedRequest", ok: "HostFeatureSupportedResponse", error: "HostFeatureSupportedError"),
        .request("notifications_send_push_notification", 4, "HostPushNotificationRequest", ok: "HostPushNotificationResponse", error: "HostPushNotificationError"),
        .request("system_navigate_to", 6, "HostNavigateToRequest", ok: "HostNavigateToResponse", error: "HostNavigateToError"),
        .request("permissions_request_device_permission", 8, "HostDevicePermissionRequest", ok: "HostDevicePermissionResponse", error: "HostDevicePermissionError"),
        .request("permissions_request_remote_permission", 10, "RemotePermissionRequest", ok: "RemotePermissionResponse", error: "RemotePermissionError"),
        .request("local_storage_read", 12, "HostLocalStorageReadRequest", ok: "HostLocalStorageReadResponse", error: "HostLocalStorageReadError"),
        .request("local_storage_write", 14, "HostLocalStorageWriteRequest", ok: "HostLocalStorageWriteResponse", error: "HostLocalStorageWriteError"),
        .request("local_storage_clear", 16, "HostLocalStorageClearRequest", ok: "HostLocalStorageClearResponse", error: "HostLocalStorageClearError"),
        .subscription("account_connection_status_subscribe", 18, nil, item: "HostAccountConnectionStatusSubscribeItem", error: nil),
        .request("account_get_account", 22, "HostAccountGetRequest", ok: "HostAccountGetResponse", error: "HostAccountGetError"),
        .request("account_get_account_alias", 24, "HostAccountGetAliasRequest", ok: "HostAccountGetAliasResponse", error: "HostAccountGetAliasError"),
        .request("account_create_account_proof", 26, "HostAccountCreateProofRequest", ok: "HostAccountCreateProofResponse", error: "HostAccountCreateProofError"),
        .request("account_get_legacy_accounts", 28, "HostGetLegacyAccountsRequest", ok: "HostGetLegacyAccountsResponse", error: "HostGetLegacyAccountsError"),
        .request("signing_create_transaction", 30, "HostCreateTransactionRequest", ok: "HostCreateTransactionResponse", error: "HostCreateTransactionError"),
        .request("signing_create_transaction_with_legacy_account", 32, "HostCreateTransactionWithLegacyAccountRequest", ok: "HostCreateTransactionWithLegacyAccountResponse", error: "HostCreateTransactionWithLegacyAccountError"),
        .request("signing_sign_raw_with_legacy_account", 34, "HostSignRawWithLegacyAccountRequest", ok: "HostSignRawWithLegacyAccountResponse", error: "HostSignRawWithLegacyAccountError"),
        .request("signing_sign_payload_with_legacy_account", 36, "HostSignPayloadWithLegacyAccountRequest", ok: "HostSignPayloadWithLegacyAccountResponse", error: "HostSignPayloadWithLegacyAccountError"),
        .request("chat_create_room", 38, "HostChatCreateRoomRequest", ok: "HostChatCreateRoomResponse", error: "HostChatCreateRoomError", execution: "Worker"),
        .request("chat_register_bot", 40, "HostChatRegisterBotRequest", ok: "HostChatRegisterBotResponse", error: "HostChatRegisterBotError", execution: "Worker"),
        .subscription("chat_list_subscribe", 42, nil, item: "HostChatListSubscribeItem", error: nil, execution: "Worker"),
        .request("chat_post_message", 46, "HostChatPostMessageRequest", ok: "HostChatPostMessageResponse", error: "HostChatPostMessageError", execution: "Worker"),
        .subscription("chat_action_subscribe", 48, nil, item: "HostChatActionSubscribeItem", error: nil, execution: "Worker"),
        .hostSubscription("chat_custom_message_render", 52, "ProductChatCustomMessageRenderRequest", item: "ProductChatCustomMessageRenderItem", error: nil, execution: "Worker"),
        .subscription("statement_store_subscribe", 56, "RemoteStatementStoreSubscribeRequest", item: "RemoteStatementStoreSubscribeItem", error: "RemoteStatementStoreSubscribeError"),
        .request("statement_store_create_proof", 60, "RemoteStatementStoreCreateProofRequest", ok: "RemoteStatementStoreCreateProofResponse", error: "RemoteStatementStoreCreateProofError"),
        .request("statement_store_submit", 62, "RemoteStatementStoreSubmitRequest", ok: nil, error: "RemoteStatementStoreSubmitError"),
        .subscription("preimage_lookup_subscribe", 64, "RemotePreimageLookupSubscribeRequest", item: "RemotePreimageLookupSubscribeItem", error: nil),
        .request("preimage_submit", 68, "RemotePreimageSubmitRequest", ok: "RemotePreimageSubmitResponse", error: "RemotePreimageSubmitError"),
        .subscription("chain_follow_head_subscribe", 76, "RemoteChainHeadFollowRequest", item: "RemoteChainHeadFollowItem", error: nil),
        .request("chain_get_head_header", 80, "RemoteChainHeadHeaderRequest", ok: "RemoteChainHeadHeaderResponse", error: "RemoteChainHeadHeaderError"),
        .request("chain_get_head_body", 82, "RemoteChainHeadBodyRequest", ok: "RemoteChainHeadBodyResponse", error: "RemoteChainHeadBodyError"),
        .request("chain_get_head_storage", 84, "RemoteChainHeadStorageRequest", ok: "RemoteChainHeadStorageResponse", error: "RemoteChainHeadStorageError"),
        .request("chain_call_head", 86, "RemoteChainHeadCallRequest", ok: "RemoteChainHeadCallResponse", error: "RemoteChainHeadCallError"),
        .request("chain_unpin_head", 88, "RemoteChainHeadUnpinRequest", ok: "RemoteChainHeadUnpinResponse", error: "RemoteChainHeadUnpinError"),
        .request("chain_continue_head", 90, "RemoteChainHeadContinueRequest", ok: "RemoteChainHeadContinueResponse", error: "RemoteChainHeadContinueError"),
        .request("chain_stop_head_operation", 92, "RemoteChainHeadStopOperationRequest", ok: "RemoteChainHeadStopOperationResponse", error: "RemoteChainHeadStopOperationError"),
        .request("chain_get_spec_genesis_hash", 94, "RemoteChainSpecGenesisHashRequest", ok: "RemoteChainSpecGenesisHashResponse", error: "RemoteChainSpecGenesisHashError"),
        .request("chain_get_spec_chain_name", 96, "RemoteChainSpecChainNameRequest", ok: "RemoteChainSpecChainNameResponse", error: "RemoteChainSpecChainNameError"),
        .request("chain_get_spec_properties", 98, "RemoteChainSpecPropertiesRequest", ok: "RemoteChainSpecPropertiesResponse", error: "RemoteChainSpecPropertiesError"),
        .request("chain_broadcast_transaction", 100, "RemoteChainTransactionBroadcastRequest", ok: "RemoteChainTransactionBroadcastResponse", error: "RemoteChainTransactionBroadcastError"),
        .request("chain_stop_transaction", 102, "RemoteChainTransactionStopRequest", ok: "RemoteChainTransactionStopResponse", error: "RemoteChainTransactionStopError"),
        .subscription("theme_subscribe", 104, nil, item: "HostThemeSubscribeItem", error: nil),
        .request("entropy_derive", 108, "HostDeriveEntropyRequest", ok: "HostDeriveEntropyResponse", error: "HostDeriveEntropyError"),
        .request("account_get_user_id", 110, "HostGetUserIdRequest", ok: "HostGetUserIdResponse", error: "HostGetUserIdError"),
        .request("account_request_login", 112, "HostRequestLoginRequest", ok: "HostRequestLoginResponse", error: "HostRequestLoginError"),
        .request("signing_sign_raw", 114, "HostSignRawRequest", ok: "HostSignRawResponse", error: "HostSignRawError"),
        .request("signing_sign_payload", 116, "HostSignPayloadRequest", ok: "HostSignPayloadResponse", error: "HostSignPayloadError"),
        .subscription("payment_balance_subscribe", 118, "HostPaymentBalanceSubscribeRequest", item: "HostPaymentBalanceSubscribeItem", error: "HostPaymentBalanceSubscribeError"),
        .request("payment_top_up", 122, "HostPaymentTopUpRequest", ok: "HostPaymentTopUpResponse", error: "HostPaymentTopUpError"),
        .request("payment_request", 124, "HostPaymentRequest", ok: "HostPaymentResponse", error: "HostPaymentError"),
        .subscription("payment_status_subscribe", 126, "HostPaymentStatusSubscribeRequest", item: "HostPaymentStatusSubscribeItem", error: "HostPaymentStatusSubscribeError"),
        .request("resource_allocation_request", 130, "HostRequestResourceAllocationRequest", ok: "HostRequestResourceAllocationResponse", error: "HostRequestResourceAllocationError"),
        .request("statement_store_create_proof_authorized", 132, "RemoteStatementStoreCreateProofAuthorizedRequest", ok: "RemoteStatementStoreCreateProofAuthorizedResponse", error: "RemoteStatementStoreCreateProofAuthorizedError"),
        .request("notifications_cancel_push_notification", 134, "HostPushNotificationCancelRequest", ok: "HostPushNotificationCancelResponse", error: "HostPushNotificationCancelError"),
        .request("coin_payment_create_purse", 136, "HostCoinPaymentCreatePurseRequest", ok: "HostCoinPaymentCreatePurseResponse", error: "HostCoinPaymentCreatePurseError"),
        .request("coin_payment_query_purse", 138, "HostCoinPaymentQueryPurseRequest", ok: "HostCoinPaymentQueryPurseResponse", error: "HostCoinPaymentQueryPurseError"),
        .subscription("coin_payment_rebalance_purse", 140, "HostCoinPaymentRebalancePurseRequest", item: "HostCoinPaymentRebalancePurseItem", error: "HostCoinPaymentRebalancePurseError"),
        .subscription("coin_payment_delete_purse", 144, "HostCoinPaymentDeletePurseRequest", item: "HostCoinPaymentDeletePurseItem", error: "HostCoinPaymentDeletePurseError"),
        .request("coin_payment_create_receivable", 148, "HostCoinPaymentCreateReceivableRequest", ok: "HostCoinPaymentCreateReceivableResponse", error: "HostCoinPaymentCreateReceivableError"),
        .request("coin_payment_create_cheque", 150, "HostCoinPaymentCreateChequeRequest", ok: "HostCoinPaymentCreateChequeResponse", error: "HostCoinPaymentCreateChequeError"),
        .subscription("coin_payment_deposit", 152, "HostCoinPaymentDepositRequest", item: "HostCoinPaymentDepositItem", error: "HostCoinPaymentDepositError"),
        .subscription("coin_payment_refund", 156, "HostCoinPaymentRefundRequest", item: "HostCoinPaymentRefundItem", error: "HostCoinPaymentRefundError"),
        .subscription("coin_payment_listen_for_payment", 160, "HostCoinPaymentListenForRequest", item: "HostCoinPaymentListenForItem", error: "HostCoinPaymentListenForError"),
        .request("account_sign_vrf", 164, "HostAccountSignVrfRequest", ok: "HostAccountSignVrfResponse", error: "HostAccountSignVrfError"),
        .request("chain_get_chain_info", 166, "RemoteChainInfoRequest", ok: "RemoteChainInfoResponse", error: "RemoteChainInfoError"),
        .request("account_register_ring_vrf_key", 168, "HostAccountRegisterRingVrfKeyRequest", ok: "HostAccountRegisterRingVrfKeyResponse", error: "HostAccountRegisterRingVrfKeyError"),
        .request("account_list_ring_vrf_keys", 170, "HostAccountListRingVrfKeysRequest", ok: "HostAccountListRingVrfKeysResponse", error: "HostAccountListRingVrfKeysError"),
        .request("account_ring_vrf_sign", 172, "HostAccountRingVrfSignRequest", ok: "HostAccountRingVrfSignResponse", error: "HostAccountRingVrfSignError"),
    ]

    private static let byDiscriminant: [UInt8: (TruAPIMethod, TruAPIFrameKind)] = {
        var table: [UInt8: (TruAPIMethod, TruAPIFrameKind)] = [:]
        for method in methods {
            for (kind, id) in method.discriminants {
                precondition(table[id] == nil, "wire id \(id) used twice")
                table[id] = (method, kind)
            }
        }
        return table
    }()

    private static let byName: [String: TruAPIMethod] = Dictionary(uniqueKeysWithValues: methods.map { ($0.name, $0) })

    /// The method and frame kind a discriminant names; nil for an unused id.
    public static func lookup(_ discriminant: UInt8) -> (method: TruAPIMethod, kind: TruAPIFrameKind)? {
        byDiscriminant[discriminant].map { (method: $0.0, kind: $0.1) }
    }

    public static func method(named name: String) -> TruAPIMethod? { byName[name] }
}
