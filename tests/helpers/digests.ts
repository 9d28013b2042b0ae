/**
 * The SHA-256 of text or bytes, in hex: how tests compare the bytes served with a file's, and
 * the form in which Longbox stores token and key hashes.
 */
export const sha256 = (data: string | Uint8Array | ArrayBuffer) => new Bun.CryptoHasher("sha256").update(data).digest("hex");
