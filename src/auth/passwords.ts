/**
 * Argon2id password hashing with the configured cost parameters. @node-rs/argon2 is used
 * instead of Bun.password because Bun ignores the parallelism parameter.
 */
import { hash, verify } from "@node-rs/argon2";
import type { Config } from "../config/schema";
import { DomainError, invalidFields } from "../errors";

export const MIN_PASSWORD_LENGTH = 8;
/** Argon2id in @node-rs/argon2's Algorithm enum (a const enum we cannot import under isolatedModules). */
const ARGON2ID = 2;

export interface Argon2Parameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export class PasswordHasher {
  constructor(private readonly parameters: Argon2Parameters) {}

  async hash(password: string): Promise<string> {
    assertPasswordAcceptable(password);
    return hash(password, { ...this.parameters, algorithm: ARGON2ID });
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }

  /** True when the hash was made with other parameters than the configured ones. */
  needsRehash(passwordHash: string): boolean {
    const match = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(passwordHash);
    if (!match) return true;
    const [, m, t, p] = match.map(Number);
    return m !== this.parameters.memoryCost || t !== this.parameters.timeCost || p !== this.parameters.parallelism;
  }
}

export function assertPasswordAcceptable(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw invalidFields("UnprocessableEntity", { password: `must be at least ${MIN_PASSWORD_LENGTH} characters` });
  }
  if (password.length > 1024) throw new DomainError("BadRequest", "password is too long");
}

export function passwordHasherFor(config: Config): PasswordHasher {
  const auth = config.auth;
  return new PasswordHasher({
    memoryCost: auth.argon2_memory_cost,
    timeCost: auth.argon2_time_cost,
    parallelism: auth.argon2_parallelism,
  });
}
