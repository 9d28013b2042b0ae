/**
 * Opaque secrets (refresh tokens, API keys, verification tokens): random generation, the
 * SHA-256 digest that is all the database ever stores, and a constant-time digest comparison.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";

export const randomBase64url = (bytes: number): string => randomBytes(bytes).toString("base64url");

export const randomHex = (bytes: number): string => randomBytes(bytes).toString("hex");

/** Bun's one-shot SHA-256 (the same digest as node:crypto's, for a fraction of its cost: API keys are hashed on every request). */
export const sha256Hex = (secret: string): string => Bun.SHA256.hash(secret, "hex");

/** Compares two hex digests without leaking, through timing, how many leading characters match. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
