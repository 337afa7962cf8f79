import Foundation
import Logging
@testable import PasskeyPostgres
import PasskeyStorage
import PasskeyTestSupport
import Synchronization
import PasskeyStoreContract
import Testing

/// What is PostgreSQL's own: the URL, TLS, migrations by several instances at once, the
/// advisory-locked sweep, and a database that cannot be reached. The behaviour every store
/// shares is tested against both in the other suites.
/// The migrations the PostgreSQL schema has now (users … sessions, then the audit trail).
let postgresSchemaVersion = 33

@Suite("PostgreSQL")
struct PostgresTests {
    /// A statement on a connection that died with the server can ignore cancellation. The
    /// deadline must still answer on time; waiting for the statement left a request unanswered
    /// and a server that would not stop on SIGTERM.
    @Test("the deadline answers .unavailable on time even when the call ignores cancellation, and a quick call wins")
    func deadlineDoesNotWaitForTheCall() async throws {
        // The call ignores cancellation for 300 s. What is checked is that the deadline answered
        // before the call did, not a wall-clock bound: with every test running at once on two
        // cores the 200 ms timer itself has been seen to fire 18 s late.
        let finished = Mutex(false)
        do {
            _ = try await PostgresPasskeyStore.firstOf({ () async -> Int in
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 300) {
                        finished.withLock { $0 = true }
                        continuation.resume()
                    }
                }
                return 1
            }, timeout: .milliseconds(200))
            Issue.record("answered without the deadline")
        } catch {
            #expect((error as? StoreError)?.code == .unavailable, "\(error)")
        }
        #expect(!finished.withLock { $0 }, "the deadline waited for the call")
        #expect(try await PostgresPasskeyStore.firstOf({ 7 }, timeout: .seconds(60)) == 7)
        await #expect(throws: StoreError.self) {
            try await PostgresPasskeyStore.firstOf({ () async throws -> Int in throw StoreError(code: .userExists, reason: "") }, timeout: .seconds(60))
        }
    }

    @Test("prepared statements: names distinct within PostgreSQL's 63 bytes, a type for every parameter the SQL uses")
    func preparedStatements() {
        let statements = PostgresPasskeyStore.preparedStatements
        let names = statements.map { $0.name }
        #expect(names.allSatisfy { !$0.isEmpty && $0.utf8.count <= 63 }, "\(names)")
        #expect(Set(names).count == names.count, "\(names)")
        for statement in statements {
            let numbers = statement.sql.split(separator: "$").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
            #expect(numbers.max() == statement.types.count, "\(statement.name)")
            #expect(Set(numbers).count == statement.types.count, "\(statement.name): a declared parameter is not used")
        }
    }

    @Test("URLs: user, password and database percent-decoded; port, sslmode and defaults")
    func locations() throws {
        let full = try PostgresLocation(url: "postgresql://app%40x:p%3As%2Fw@db.internal:6543/pass%20keys?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(full.user == "app@x")
        #expect(full.password == "p:s/w")
        #expect(full.host == "db.internal")
        #expect(full.port == 6543)
        #expect(full.database == "pass keys")
        #expect(full.tls == .verifyFull)
        #expect(full.rootCertificatePath == "/etc/ca.pem")
        #expect(!full.description.contains("p:s/w"))

        let short = try PostgresLocation(url: "postgres://alice@localhost")
        #expect(short.port == 5432)
        #expect(short.database == "alice")
        #expect(short.tls == .prefer)
        #expect(short.password == nil)

        for bad in [
            "postgres://", "postgres://localhost/db", "postgres://u@/db", "postgres://u@h:0/db",
            "postgres://u@h/db?sslmode=maybe", "postgres://u@h/db?options=-c%20x", "mysql://u@h/db", "./passkeys.sqlite",
        ] {
            #expect(throws: PostgresLocation.Invalid.self, "\(bad)") { try PostgresLocation(url: bad) }
        }
        #expect(PostgresLocation.isURL("POSTGRES://u@h/db"))
        #expect(!PostgresLocation.isURL("postgres.sqlite"))
    }

    @Test("URLs of a Unix-domain socket: host= or an encoded path in the host's place, the port in the socket's name, no TLS asked for")
    func socketLocations() throws {
        let byParameter = try PostgresLocation(url: "postgres://passkey@/passkeys?host=/run/postgresql")
        #expect(byParameter.socketDirectory == "/run/postgresql")
        #expect(byParameter.host.isEmpty)
        #expect(byParameter.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(byParameter.password == nil)
        #expect(byParameter.database == "passkeys")
        #expect(byParameter.description == "postgres://passkey@:5432/passkeys?host=/run/postgresql")

        let encoded = try PostgresLocation(url: "postgresql://passkey:s%3Acret@%2Fvar%2Frun%2Fpostgresql:5433/db?sslmode=disable")
        #expect(encoded.socketPath == "/var/run/postgresql/.s.PGSQL.5433")
        #expect(encoded.password == "s:cret")
        #expect(try PostgresLocation(url: "postgres://u@:6000/db?host=/tmp/").socketPath == "/tmp/.s.PGSQL.6000")
        #expect(try PostgresLocation(url: "postgres://u@/db?host=/run/pg&sslmode=prefer").tls == .prefer)
        // A TCP URL has no socket.
        #expect(try PostgresLocation(url: "postgres://u@h/db").socketPath == nil)

        let longDirectory = "/" + String(repeating: "d", count: 100)
        for bad in [
            "postgres://u@/db?host=run/postgresql",  // relative: not a directory libpq would take either
            "postgres://u@/db?host=",
            "postgres://u@h/db?host=/run/postgresql",  // two hosts
            "postgres://u@%2Frun/db?host=/run/postgresql",
            "postgres://u@/db?host=/run/postgresql&sslmode=require",  // TLS never runs over a socket
            "postgres://u@/db?host=/run/postgresql&sslmode=verify-full",
            "postgres://u@/db?host=\(longDirectory)",  // longer than sun_path
            "postgres://u@/db?host=/run/pg%00sql",  // a NUL would cut the path short
            "postgres:///db?host=/run/postgresql",  // no user
        ] {
            #expect(throws: PostgresLocation.Invalid.self, "\(bad)") { try PostgresLocation(url: bad) }
        }
    }

    @Test("a store reaches the test cluster through its Unix-domain socket",
          .enabled(if: TestPostgres.isAvailable && TestPostgres.socketDirectory != nil))
    func socket() async throws {
        try await TestPostgres.withDatabase { url in
            let tcp = try PostgresLocation(url: url)
            let directory = try #require(TestPostgres.socketDirectory)
            let location = try PostgresLocation(url: "postgres://\(tcp.user)@:\(tcp.port)/\(tcp.database)?host=\(directory)")
            let store = try await PostgresPasskeyStore(location: location, poolSize: 1, timeout: testTimeout, logger: quietLogger)
            #expect(try await store.schemaVersion == postgresSchemaVersion)
            // A connection over a Unix-domain socket has no client address on the server.
            let overSocket = try await TestPostgres.query(
                url,
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE application_name = 'passkey-server' AND datname = current_database() AND client_addr IS NULL
                """, as: Int64.self)
            #expect(overSocket == [1])
            await store.close()
        }
    }

    @Test("sslmode=require connects over TLS; verify-full connects with the cluster's root and refuses without it",
          .enabled(if: TestPostgres.isAvailable && TestPostgres.certificateAuthority != nil))
    func tls() async throws {
        try await TestPostgres.withDatabase { url in
            let required = try PostgresLocation(url: url + "?sslmode=require")
            let store = try await PostgresPasskeyStore(location: required, poolSize: 1, timeout: testTimeout, logger: quietLogger)
            #expect(try await store.schemaVersion == postgresSchemaVersion)
            // The pool keeps its idle connection open: it shows up with TLS on the server.
            let encrypted = try await TestPostgres.query(
                url,
                """
                SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE s.ssl AND a.application_name = 'passkey-server' AND a.datname = current_database()
                """, as: Int64.self)
            #expect(encrypted == [1])
            await store.close()

            let root = try #require(TestPostgres.certificateAuthority)
            let verified = try PostgresLocation(url: url + "?sslmode=verify-full&sslrootcert=\(root)")
            let checked = try await PostgresPasskeyStore(location: verified, poolSize: 1, timeout: testTimeout, logger: quietLogger)
            #expect(try await checked.schemaVersion == postgresSchemaVersion)
            await checked.close()

            // The system roots do not know the cluster's certificate: no connection, and a
            // StoreError (not a hang) once the deadline passes.
            let unverifiable = try PostgresLocation(url: url + "?sslmode=verify-full")
            await #expect(throws: StoreError.self) {
                _ = try await PostgresPasskeyStore(location: unverifiable, poolSize: 1, timeout: .seconds(3), logger: quietLogger)
            }
        }
    }

    @Test("six instances starting at once on an empty database: one migrates, all start", .enabled(if: TestPostgres.isAvailable))
    func concurrentMigration() async throws {
        try await TestPostgres.withDatabase { url in
            let location = try PostgresLocation(url: url)
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let store = try await PostgresPasskeyStore(location: location, poolSize: 2, timeout: testTimeout, logger: quietLogger)
                        let version = try await store.schemaVersion
                        await store.close()
                        return version
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(versions == Array(repeating: postgresSchemaVersion, count: 6))
            let rows = try await TestPostgres.query(url, "SELECT count(*) FROM schema_migrations", as: Int64.self)
            #expect(rows == [Int64(postgresSchemaVersion)])
        }
    }

    @Test("a newer schema that only adds is accepted (rolling upgrade); one that does not is refused",
          .enabled(if: TestPostgres.isAvailable))
    func newerSchema() async throws {
        try await TestPostgres.withDatabase { url in
            let location = try PostgresLocation(url: url)
            let store = try await PostgresPasskeyStore(location: location, timeout: testTimeout, logger: quietLogger)
            await store.close()

            _ = try await TestPostgres.query(url, "INSERT INTO schema_migrations (version, additive) VALUES (98, true) RETURNING version", as: Int32.self)
            let older = try await PostgresPasskeyStore(location: location, timeout: testTimeout, logger: quietLogger)
            #expect(try await older.schemaVersion == 98)
            await older.close()

            _ = try await TestPostgres.query(url, "INSERT INTO schema_migrations (version, additive) VALUES (99, false) RETURNING version", as: Int32.self)
            let error = await #expect(throws: StoreError.self) {
                _ = try await PostgresPasskeyStore(location: location, timeout: testTimeout, logger: quietLogger)
            }
            #expect(error?.code == .database)
            #expect(error?.reason.contains("migration 99") == true)
        }
    }

    @Test("a seal with nothing to seal takes no lock (an idle server writes nothing), and one with events waits for the head",
          .enabled(if: TestPostgres.isAvailable))
    func idleSealTakesNoLock() async throws {
        try await TestPostgres.withDatabase { url in
            let location = try PostgresLocation(url: url)
            let store = try await PostgresPasskeyStore(location: location, timeout: testTimeout, logger: quietLogger)
            // Gives up after 5 s, where `store` would wait for as long as the lock is held.
            let impatient = try await PostgresPasskeyStore(location: location, timeout: .seconds(5), logger: quietLogger)
            // Another session holds the chain's head row until it is ended (30 s at most).
            let holder = Task {
                try await TestPostgres.query(
                    url, "WITH held AS MATERIALIZED (SELECT head_seq FROM audit_chain WHERE id = 1 FOR UPDATE) SELECT pg_sleep(30)::text FROM held",
                    as: String.self)
            }
            // Ends the holder, also when a check below throws, so that no lock outlives the test.
            func release() async {
                _ = try? await TestPostgres.query(
                    url, "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)::text FROM held%' AND pid <> pg_backend_pid()",
                    as: String.self)
                _ = try? await holder.value
            }
            do {
                // Until the holder has the row: its transaction holds a transaction id only once it
                // locked it (a fixed wait was too short for a new connection under the whole suite).
                var holding = false
                for _ in 0..<240 where !holding {
                    let locks = try await TestPostgres.query(
                        url, """
                        SELECT count(*)::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.locktype = 'transactionid' AND a.query LIKE '%pg_sleep(30)::text FROM held%' AND a.pid <> pg_backend_pid()
                        """, as: String.self)
                    holding = locks.first.flatMap(Int.init) ?? 0 > 0
                    if !holding { try await Task.sleep(for: .milliseconds(250)) }
                }
                try #require(holding, "the holder never locked the chain's head")
                // Nothing to seal: answered although the head is locked.
                #expect(try await impatient.sealAuditChain() == 0)
                // Something to seal: the seal waits for the head.
                try await store.insertEvent(AuditEvent(userHandle: [], type: "test", at: Fixture.date(), ip: nil, userAgent: nil, details: [:]))
                await #expect(throws: StoreError.self) { _ = try await impatient.sealAuditChain() }
                await release()
                // Sealed once the head is free: by this seal, or by the abandoned one that gave up.
                var chained = 0
                for _ in 0..<20 where chained == 0 {
                    _ = try await store.sealAuditChain()
                    chained = try await store.chainedEvents(after: 0, limit: 10).count
                    if chained == 0 { try await Task.sleep(for: .milliseconds(250)) }
                }
                #expect(chained == 1)
            } catch {
                await release()
                await impatient.close()
                await store.close()
                throw error
            }
            await impatient.close()
            await store.close()
        }
    }

    @Test("two instances sweeping at once: every expired row is deleted once, none twice", .enabled(if: TestPostgres.isAvailable))
    func concurrentSweeps() async throws {
        try await withTwoStores(.postgres) { first, second in
            for index in 0..<40 {
                try await first.insertCeremony(Fixture.ceremony(expiresIn: index.isMultiple(of: 2) ? 1_000 : 900_000))
            }
            let later = Fixture.date(60_000)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.sweepExpired(now: later).ceremonies }
                }
                return try await group.reduce(0, +)
            }
            #expect(counts == 20)
            #expect(try await first.sweepExpired(now: later).ceremonies == 0)
        }
    }

    @Test("concurrent registrations of one name on two instances: exactly one account", .enabled(if: TestPostgres.isAvailable))
    func oneNameTwoInstances() async throws {
        try await withTwoStores(.postgres) { first, second in
            let outcomes = try await withThrowingTaskGroup(of: RegistrationOutcome.self) { group in
                for index in 0..<20 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        let user = Fixture.user(name: "Carol")
                        let ceremony = Fixture.ceremony(.registration)
                        try await store.insertCeremony(ceremony)
                        return try await store.completeRegistration(
                            challenge: ceremony.challenge, now: Fixture.date(1), credential: Fixture.credential(for: user),
                            newUser: user, session: Fixture.session(for: user))
                    }
                }
                return try await group.reduce(into: [RegistrationOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .registered }.count == 1)
            #expect(outcomes.filter { $0 == .userExists }.count == 19)
            let user = try #require(try await second.user(nameKey: "carol"))
            #expect(try await first.credentials(userHandle: user.handle).count == 1)
        }
    }

    @Test("nothing listening: opening fails with .unavailable within the timeout, no hang")
    func unreachable() async throws {
        let port = try TestPorts.free()
        let location = try PostgresLocation(url: "postgres://passkey:x@127.0.0.1:\(port)/passkeys?sslmode=disable")
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            _ = try await PostgresPasskeyStore(location: location, timeout: .seconds(2), logger: quietLogger)
        }
        #expect(error?.code == .unavailable)
        // Bounded, not punctual: the whole test run shares two cores.
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
