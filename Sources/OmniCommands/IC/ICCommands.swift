import OmniCLI

/// `omni ic …`: the Internet Computer tree.
public enum ICCommands {
    public static var group: Command {
        Command("ic", abstract: "Internet Computer: verified calls and the cryptography behind them.",
                section: "Internet Computer") { network + ICOfflineCommands.all + [bls] }
    }

    /// The commands that talk to a replica (agent in OmniIC/Agent); the offline ones are in ICOfflineSupport.swift.
    static var network: [Command] {
        [ICQueryCommand.command, ICCallCommand.command, ICRequestStatusCommand.command, ICReadStateCommand.command,
         ICMetadataCommand.command, ICStatusCommand.command, ICSendCommand.command]
    }

    static var bls: Command {
        Command("bls", abstract: "BLS12-381 signatures as the IC uses them (signature in G1, public key in G2).",
                subcommands: [ICBLSVerifyCommand.command])
    }
}
