/// The server's version, in one place: `passkey-server --version` and `GET /healthz`'s
/// `version` show it. Semantic versioning; CHANGELOG.md says what each version changed.
public enum ServerVersion {
    public static let current = "0.9.0"
}
