import Foundation
import PasskeyApp
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `passkey-server users add-to-group|remove-from-group` and `groups list` on the running
/// server's database; `GET /me` shows the groups at once.
@Suite struct GroupsCommandTests {
    @Test func membershipsFromTheCommandLineShowInTheAccount() async throws {
        try await withServer { server, ceremonies, client in
            let database = server.postgresDatabase ?? server.directory.appendingPathComponent("db.sqlite").path
            func run(_ arguments: [String]) async throws -> CommandRun {
                try await CommandRun.run(arguments + ["--database", database])
            }
            let (registered, _, _) = try await ceremonies.register("Ada")
            let session = try #require(registered.json["session"] as? String)
            #expect(try await client.get("/me", bearer: session).json["groups"] as? [String] == [])

            let added = try await run(["users", "add-to-group", "ada", "Staff"])
            #expect(added.status == 0 && added.output == "ada is now a member of Staff\n", "\(added.errors)")
            #expect(try await run(["users", "add-to-group", "ADA", "staff"]).output.contains("already"))
            #expect(try await run(["users", "add-to-group", "ada", "admins"]).status == 0)
            #expect(try await client.get("/me", bearer: session).json["groups"] as? [String] == ["admins", "Staff"])

            let listed = try await run(["groups", "list", "--json"])
            #expect(listed.output == #"{"group":"admins","members":1}"# + "\n" + #"{"group":"Staff","members":1}"# + "\n")
            #expect(try await run(["groups", "list"]).output == "admins\t1 member\nStaff\t1 member\n")

            #expect(try await run(["users", "remove-from-group", "ada", "STAFF"]).status == 0)
            let notMember = try await run(["users", "remove-from-group", "ada", "staff"])
            #expect(notMember.status == 1 && notMember.errors.contains("not a member"))
            #expect(try await client.get("/me", bearer: session).json["groups"] as? [String] == ["admins"])

            // Each change is an event on the account, by the command line.
            let user = try #require(try await server.app.store.user(nameKey: "ada"))
            let events = try await server.app.store.events(userHandle: user.handle, before: nil, limit: 10)
            #expect(events.prefix(3).map(\.type) == ["group_removed", "group_added", "group_added"])
            #expect(events.first?.details == ["group": "STAFF", "by": "command line"])

            // Mistakes say what is wrong and change nothing.
            let unknown = try await run(["users", "add-to-group", "nobody", "staff"])
            #expect(unknown.status == 1 && unknown.errors.contains("no account is named nobody"))
            let invisible = try await run(["users", "add-to-group", "ada", "st\u{200B}aff"])
            #expect(invisible.status == 1 && invisible.errors.contains("group name"))
            let empty = try await run(["users", "add-to-group", "ada", "  "])
            #expect(empty.status == 1)
            #expect(try await server.app.store.groups(userHandle: user.handle).map(\.name) == ["admins"])
        }
    }
}
