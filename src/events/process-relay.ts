/**
 * Events between the processes of one server (`longbox serve --workers N`): each process's
 * locally produced scan and reading events go out through `send`; events from the others come
 * in through the returned function and reach only local subscribers (so nothing loops back).
 * The transport (IPC between the supervisor and its web processes) is the caller's.
 */
import type { ProgressEvent, ReadingEvents } from "./reading-events";
import type { RelayedScanEvent, ScanEvents } from "./scan-events";

export type RelayMessage<T = unknown> = { channel: "scan"; event: RelayedScanEvent<T> } | { channel: "reading"; event: ProgressEvent };

export interface EventChannels<T> {
  scanEvents: ScanEvents<T>;
  readingEvents: ReadingEvents;
}

export function relayEvents<T>(channels: EventChannels<T>, send: (message: RelayMessage<T>) => void): (message: RelayMessage<T>) => void {
  channels.scanEvents.onLocal((event) => send({ channel: "scan", event }));
  channels.readingEvents.onLocal((event) => send({ channel: "reading", event }));
  return (message) => {
    if (message.channel === "scan") channels.scanEvents.deliver(message.event);
    else channels.readingEvents.deliver(message.event);
  };
}
