/// The release of omni these libraries belong to, bumped by hand at release time: `omni version` shows it, and
/// generated bindings name it in their build information.
public enum OmniRelease {
    public static let version = "0.1.0"
}
