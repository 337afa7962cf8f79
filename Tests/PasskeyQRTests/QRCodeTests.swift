import PasskeyQR
import Testing

@Suite struct QRCodeTests {}
