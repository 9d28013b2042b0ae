/**
 * Events between the processes of one server (`longbox serve --workers N`): each process's
 * locally produced scan, reading and job events go out through `send`; events from the others come
 * in through the returned function and reach only local subscribers (so nothing loops back).
 * Two transports: IPC between the supervisor and its web processes (SQLite), and the database
 * itself on PostgreSQL, which reaches every process of every instance.
 */
import type { Notifications } from "../db";
import type { JobEvent, JobEvents } from "./job-events";
import type { ProgressEvent, ReadingEvents } from "./reading-events";
import type { RelayedScanEvent, ScanEvents } from "./scan-events";

export type RelayMessage<T = unknown> =
  | { channel: "scan"; event: RelayedScanEvent<T> }
  | { channel: "reading"; event: ProgressEvent }
  | { channel: "job"; event: JobEvent };

export interface EventChannels<T> {
  scanEvents: ScanEvents<T>;
  readingEvents: ReadingEvents;
  jobEvents: JobEvents;
}

export function relayEvents<T>(channels: EventChannels<T>, send: (message: RelayMessage<T>) => void): (message: RelayMessage<T>) => void {
  channels.scanEvents.onLocal((event) => send({ channel: "scan", event }));
  channels.readingEvents.onLocal((event) => send({ channel: "reading", event }));
  channels.jobEvents.onLocal((event) => send({ channel: "job", event }));
  return (message) => {
    if (message.channel === "scan") channels.scanEvents.deliver(message.event);
    else if (message.channel === "reading") channels.readingEvents.deliver(message.event);
    else channels.jobEvents.deliver(message.event);
  };
}

const CHANNEL = "longbox_events";

/**
 * Relays events through the database (PostgreSQL LISTEN/NOTIFY) to every other process
 * connected to it: the instances on other machines and the processes of `serve --workers`.
 * Each process drops its own messages, which come back to it too.
 */
export async function relayEventsThroughDatabase<T>(
  channels: EventChannels<T>,
  notifications: Notifications,
  onError: (error: Error) => void,
): Promise<void> {
  const self = crypto.randomUUID();
  const deliver = relayEvents(channels, (message) => {
    notifications.notify(CHANNEL, JSON.stringify({ from: self, message })).catch(onError);
  });
  await notifications.listen(CHANNEL, (payload) => {
    const { from, message } = JSON.parse(payload) as { from: string; message: RelayMessage<T> };
    if (from !== self) deliver(message);
  });
}
