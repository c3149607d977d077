import QRCode from "qrcode";

/** A QR code as an SVG data URL (CSP allows `img-src data:`; no script, no external resource). */
export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, {
    type: "svg",
    errorCorrectionLevel: "M",
    margin: 2,
    color: { dark: "#111827", light: "#ffffff" },
  });
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}
