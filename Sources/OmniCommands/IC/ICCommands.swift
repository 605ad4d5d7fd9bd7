import OmniCLI

/// `omni ic …`: the Internet Computer tree.
public enum ICCommands {
    public static var group: Command {
        Command("ic", abstract: "Internet Computer: verified calls and the cryptography behind them.",
                section: "Internet Computer") { network + offline + [bls] }
    }

    /// The commands that talk to a replica (agent in OmniIC/Agent).
    static var network: [Command] {
        [ICQueryCommand.command, ICCallCommand.command, ICRequestStatusCommand.command, ICReadStateCommand.command,
         ICMetadataCommand.command, ICStatusCommand.command, ICSendCommand.command]
    }

    /// The commands that need no network: principals, accounts, identities, certificate checks and offline signing.
    static var offline: [Command] { [principal, ICAccountIDCommand.command, account, identity, certificate, ICSignCommand.command] }

    static var principal: Command {
        Command("principal", abstract: "Parse, derive and inspect principals (user, canister and subnet ids).") {
            [ICPrincipalParseCommand.command, ICPrincipalFromKeyCommand.command, ICPrincipalFromBytesCommand.command,
             ICPrincipalWellKnownCommand.anonymous, ICPrincipalWellKnownCommand.management]
        }
    }

    static var account: Command {
        Command("account", abstract: "ICRC-1 accounts: encode an owner and subaccount as text, or decode the text.") {
            [ICAccountIDEncodeCommand.command, ICAccountIDDecodeCommand.command]
        }
    }

    static var identity: Command {
        Command("identity", abstract: "Keys that sign requests, stored under the config directory (files 0600).",
                discussion: """
                    Identities live in $XDG_CONFIG_HOME/omni/identities/ (or $OMNI_CONFIG_DIR/identities/): keys as \
                    <name>.pem in the formats dfx writes, delegated sessions as <name>.session.json, the default's \
                    name in default-identity. Private keys are never printed, except by 'identity export \
                    --show-private-key'.

                    Every command that signs, or that needs a principal you did not name, uses one choice, in this \
                    order: --pem FILE (where a command takes it), --identity NAME, $OMNI_IDENTITY, the config key \
                    ic.identity, the default identity, else anonymous (2vxsx-fae). 'omni ic identity whoami' says \
                    which applies and why.
                    """) {
            [ICIdentityNewCommand.command, ICIdentityListCommand.command, ICIdentityUseCommand.command,
             ICIdentityWhoamiCommand.command, ICIdentityPrincipalCommand.command, ICIdentityShowCommand.command,
             ICIdentityImportCommand.command, ICIdentityExportCommand.command, ICIdentityRemoveCommand.command,
             ICIdentityDelegateCommand.command, ICIdentityVerifyDelegationCommand.command]
        }
    }

    static var certificate: Command {
        Command("certificate", abstract: "Check IC certificates offline (BLS signature, delegation, ranges, time).") {
            [ICCertificateVerifyCommand.command]
        }
    }

    static var bls: Command {
        Command("bls", abstract: "BLS12-381 signatures as the IC uses them (signature in G1, public key in G2).") {
            [ICBLSVerifyCommand.command]
        }
    }
}
