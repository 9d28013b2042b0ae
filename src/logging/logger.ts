/**
 * Structured logging: one line per event, as text or JSON, to stdout and optionally a file.
 * Child loggers carry bound fields (the request id, a scan id). Fields whose names look like
 * credentials are redacted, so a careless `log.info("x", { body })` cannot leak a password.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

export const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  trace(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  isEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level: LogLevel;
  format: "text" | "json";
  /** Append to this file as well as stdout; empty = stdout only. */
  file?: string;
  /** Where lines go besides the file; defaults to stdout. Tests pass their own sink. */
  sink?: (line: string) => void;
}

const SENSITIVE_FIELD = /pass(word)?|secret|token|authorization|api[-_]?key|cookie/i;
const REDACTED = "[redacted]";

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  if (options.file) mkdirSync(dirname(options.file), { recursive: true });
  const write = (line: string) => {
    (options.sink ?? ((text: string) => process.stdout.write(text)))(`${line}\n`);
    if (options.file) appendFileSync(options.file, `${line}\n`);
  };

  const build = (bound: LogFields): Logger => {
    const emit = (level: LogLevel) => (message: string, fields?: LogFields) => {
      if (LOG_LEVELS.indexOf(level) > threshold) return;
      const all = redact({ ...bound, ...fields });
      write(options.format === "json" ? jsonLine(level, message, all) : textLine(level, message, all));
    };
    return {
      error: emit("error"),
      warn: emit("warn"),
      info: emit("info"),
      debug: emit("debug"),
      trace: emit("trace"),
      child: (fields) => build({ ...bound, ...fields }),
      isEnabled: (level) => LOG_LEVELS.indexOf(level) <= threshold,
    };
  };
  return build({});
}

function redact(fields: LogFields): LogFields {
  const clean: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    clean[key] = SENSITIVE_FIELD.test(key) ? REDACTED : value instanceof Error ? errorFields(value) : value;
  }
  return clean;
}

function errorFields(error: Error): LogFields {
  return { name: error.name, message: error.message, stack: error.stack };
}

function jsonLine(level: LogLevel, message: string, fields: LogFields): string {
  return JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields });
}

function textLine(level: LogLevel, message: string, fields: LogFields): string {
  const rendered = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === "string" && !/\s|"/.test(value) ? value : JSON.stringify(value)}`)
    .join(" ");
  return `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}${rendered ? ` ${rendered}` : ""}`;
}
