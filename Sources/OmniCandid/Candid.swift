/// Entry points of the Candid library; each `omni candid …` command is a thin call to one of these.
public enum Candid {}
