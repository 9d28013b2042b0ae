/**
 * Encryption at rest of the secrets the service keeps in its database (today the PKCE verifier
 * and nonce of pending single sign-ons), so that a copy of the database alone cannot complete
 * someone's sign-in. AES-256-GCM from node:crypto, under a key derived with HKDF-SHA256 from
 * `encryption_key` (or the key generated into the data folder: src/config/secrets.ts).
 *
 * A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id, derived
 * from the same secret, tells a value written under another key (a changed key, or an instance
 * configured with another one) apart from a damaged one, for a clear message. The associated
 * data binds each value to where it is stored (say, its row and column): a value copied into
 * another row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed salt: the input is already a strong secret (at least 32 bytes, checked at start),
// so HKDF only needs to separate the uses of it.
const SALT = "longbox database secrets";

/** Why a sealed value could not be opened. */
export class UnreadableSecretError extends Error {
  constructor(readonly reason: "other-key" | "damaged") {
    super(reason === "other-key" ? "the value was encrypted under another encryption key" : "the value is not a sealed secret or was altered");
  }
}

export class SecretBox {
  private readonly key: Buffer;
  private readonly keyId: string;

  constructor(secret: string) {
    const derive = (info: string, length: number) => Buffer.from(hkdfSync("sha256", secret, SALT, info, length));
    this.key = derive("aes-256-gcm key", 32);
    this.keyId = derive("key id", 6).toString("base64url");
  }

  /** Encrypts `plaintext`; `context` names where it will be stored and must be given again to open it. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, this.keyId, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
  }

  /** The plaintext of a value sealed under this key with the same `context`; else UnreadableSecretError. */
  open(sealed: string, context: string): string {
    const [version, keyId, iv, ciphertext, tag, ...rest] = sealed.split(".");
    if (version !== VERSION || iv === undefined || ciphertext === undefined || tag === undefined || rest.length > 0) {
      throw new UnreadableSecretError("damaged");
    }
    if (keyId !== this.keyId) throw new UnreadableSecretError("other-key");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      // A wrong tag length or a failed authentication: altered, moved to another row, or forged.
      throw new UnreadableSecretError("damaged");
    }
  }
}
