import OmniCLI

/// `omni ic …`: the Internet Computer tree.
public enum ICCommands {
    public static var group: Command {
        Command("ic", abstract: "Internet Computer: verified calls and the cryptography behind them.",
                subcommands: [bls]
                    + ICOfflineCommands.all,  // principal, account-id, account, identity, certificate, sign (ICOfflineSupport.swift)
                section: "Internet Computer")
    }

    static var bls: Command {
        Command("bls", abstract: "BLS12-381 signatures as the IC uses them (signature in G1, public key in G2).",
                subcommands: [ICBLSVerifyCommand.command])
    }
}
