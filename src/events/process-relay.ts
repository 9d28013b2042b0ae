/**
 * Events between the processes of one server (`longbox serve --workers N`): each process's
 * locally produced scan, reading, job, thumbnail-count and credential events go out through `send`; events from the others come
 * in through the returned function and reach only local subscribers (so nothing loops back).
 * Two transports: IPC between the supervisor and its web processes, and on PostgreSQL the
 * database, which reaches the other instances.
 */
import type { Notifications } from "../db";
import type { CredentialEvent, CredentialEvents } from "./credential-events";
import type { JobEvent, JobEvents } from "./job-events";
import type { ProgressEvent, ReadingEvents } from "./reading-events";
import type { RelayedScanEvent, ScanEvents } from "./scan-events";
import type { ThumbnailCount, ThumbnailEvents } from "./thumbnail-events";

export type RelayMessage<T = unknown> =
  | { channel: "scan"; event: RelayedScanEvent<T> }
  | { channel: "reading"; event: ProgressEvent }
  | { channel: "job"; event: JobEvent }
  | { channel: "thumbnails"; event: ThumbnailCount }
  | { channel: "credentials"; event: CredentialEvent };

export interface EventChannels<T> {
  scanEvents: ScanEvents<T>;
  readingEvents: ReadingEvents;
  jobEvents: JobEvents;
  thumbnailEvents: ThumbnailEvents;
  credentialEvents: CredentialEvents;
}

export function relayEvents<T>(channels: EventChannels<T>, send: (message: RelayMessage<T>) => void): (message: RelayMessage<T>) => void {
  channels.scanEvents.onLocal((event) => send({ channel: "scan", event }));
  channels.readingEvents.onLocal((event) => send({ channel: "reading", event }));
  channels.jobEvents.onLocal((event) => send({ channel: "job", event }));
  channels.thumbnailEvents.onLocal((event) => send({ channel: "thumbnails", event }));
  channels.credentialEvents.onLocal((event) => send({ channel: "credentials", event }));
  return (message) => {
    if (message.channel === "scan") channels.scanEvents.deliver(message.event);
    else if (message.channel === "reading") channels.readingEvents.deliver(message.event);
    else if (message.channel === "thumbnails") channels.thumbnailEvents.deliver(message.event);
    else if (message.channel === "credentials") channels.credentialEvents.deliver(message.event);
    else channels.jobEvents.deliver(message.event);
  };
}

const CHANNEL = "longbox_events";

/**
 * Relays events through the database (PostgreSQL LISTEN/NOTIFY) to the other instances
 * connected to it. Messages from this process's own `group` are dropped (they come back to
 * the sender too): the processes of one `serve --workers` relay to each other over IPC, which
 * does not depend on the database. NOTIFY reaches only the connections listening when it is
 * sent, so an event sent while another instance's LISTEN connection is away (an outage, a
 * restart of the database: it listens again within a few seconds of the database's return) is lost to
 * that instance's streams; its clients read the state again (scan status, progress).
 */
export async function relayEventsThroughDatabase<T>(
  channels: EventChannels<T>,
  notifications: Notifications,
  group: string,
  onError: (error: Error) => void,
): Promise<void> {
  const deliver = relayEvents(channels, (message) => {
    notifications.notify(CHANNEL, JSON.stringify({ from: group, message })).catch(onError);
  });
  await notifications.listen(CHANNEL, (payload) => {
    const { from, message } = JSON.parse(payload) as { from: string; message: RelayMessage<T> };
    if (from !== group) deliver(message);
  });
}
