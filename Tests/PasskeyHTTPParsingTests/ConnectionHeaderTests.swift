import PasskeyHTTPParsing
import Testing

/// `Connection: close` among the field's options (RFC 9110 §7.6.1).
@Suite struct ConnectionHeaderTests {
    @Test func closeIsAnOptionInAnyCaseAmongOthers() {
        #expect(ConnectionHeader.asksToClose("close"))
        #expect(ConnectionHeader.asksToClose("keep-alive, Close"))
        #expect(ConnectionHeader.asksToClose("Upgrade,\tCLOSE\t"))
        #expect(ConnectionHeader.asksToClose(",, close ,"))
    }

    @Test func noCloseOptionKeepsTheConnection() {
        #expect(!ConnectionHeader.asksToClose(nil))
        #expect(!ConnectionHeader.asksToClose(""))
        #expect(!ConnectionHeader.asksToClose("keep-alive"))
        #expect(!ConnectionHeader.asksToClose("closed"))
        #expect(!ConnectionHeader.asksToClose("clos e"))
        #expect(!ConnectionHeader.asksToClose("close-later, upgrade"))
        // Only ASCII space and tab are whitespace here, and only ASCII letters fold.
        #expect(!ConnectionHeader.asksToClose("\u{00A0}close"))
    }
}
