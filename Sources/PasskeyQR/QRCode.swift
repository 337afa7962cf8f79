/// QR codes (libqrencode), drawn as SVG.
public enum QRCode {}
