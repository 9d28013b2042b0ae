/**
 * Changes of a user's reading progress, from every surface that records it (REST, OPDS page
 * streaming, the Komga API), for event streams that tell that user's other clients.
 */
export interface ProgressEvent {
  kind: "saved" | "deleted";
  userId: string;
  bookId: string;
  seriesId: string;
}

type Listener = (event: ProgressEvent) => void;

export class ReadingEvents {
  private readonly listeners = new Set<Listener>();
  private readonly outbound = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: ProgressEvent): void {
    this.deliver(event);
    for (const relay of this.outbound) relay(event);
  }

  /** Changes recorded in this process, for relaying them to other processes. */
  onLocal(relay: Listener): void {
    this.outbound.add(relay);
  }

  /** A change another process recorded: to this process's listeners only, never relayed back. */
  deliver(event: ProgressEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
