/** UUIDv7: time-ordered, so new rows land at the end of the primary-key index. */
export const newId = (): string => Bun.randomUUIDv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids from outside (path parameters) are checked before they reach a uuid column. */
export const isUuid = (value: string): boolean => UUID.test(value);
