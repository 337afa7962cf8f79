internal import Foundation
internal import Hummingbird

/// The page's files (`Public/`), looked up when no route answered (404): the request
/// pipeline's step before the route's handler. The directory is
/// listed once, at start: a path that names none of its files or folders goes straight to the
/// route's answer, without a trip to the file system's thread pool (a 404 cost twice as much
/// with it). A file's content is read at each request, so an edited file is served as edited;
/// a file added later is served after a restart. A path that cannot name a file — `..` in it,
/// or percent-encoding that does not decode — is left to the routes' own answer: the file
/// lookup would turn a route's 404 (`GET /recovery/0..0`, an unknown id) into a bare 400 that
/// no operation documents.
struct PublicFiles: Sendable {
    typealias Context = PasskeyRequestContext

    let files: FileMiddleware<Context, LocalFileSystem>
    /// The request paths that name something in the directory: `/app.js`, `/js/shared.js`, and
    /// each folder with and without its final slash (`/`, `/js`, `/js/`).
    let paths: Set<String>

    /// The file `request` names, or what `next` (the route) answers.
    func serve(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard names(request) else { return try await next(request, context) }
        return try await files.handle(request, context: context, next: next)
    }

    /// Whether `request` asks for something in the directory: a GET or HEAD of one of its paths.
    func names(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head, let path = Self.filePath(request.uri.path) else { return false }
        return paths.contains(path)
    }

    /// The path as it names a file: percent-decoded, nil with `..` in it (before or after
    /// decoding) or with percent-encoding that does not decode. Byte by byte, and Foundation's
    /// decoding only for a path that has a `%`: this runs on every request.
    static func filePath(_ path: String) -> String? {
        let decoded = path.utf8.contains(UInt8(ascii: "%")) ? path.removingPercentEncoding : path
        guard let decoded else { return nil }
        var previousWasDot = false
        for byte in decoded.utf8 {
            let isDot = byte == UInt8(ascii: ".")
            if isDot && previousWasDot { return nil }
            previousWasDot = isDot
        }
        return decoded
    }

    /// Every request path naming a file or folder under `directory` (hidden ones included, as
    /// the file middleware serves them).
    static func paths(in directory: String) -> Set<String> {
        var paths: Set<String> = ["/"]
        let root = URL(fileURLWithPath: directory)
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return paths }
        let prefix = root.standardizedFileURL.path
        for case let url as URL in walk {
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            let relative = String(full.dropFirst(prefix.count))
            let path = relative.hasPrefix("/") ? relative : "/" + relative
            paths.insert(path)
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { paths.insert(path + "/") }
        }
        return paths
    }
}
