/** UUIDv7: time-ordered, so new rows land at the end of the primary-key index. */
export const newId = (): string => Bun.randomUUIDv7();
