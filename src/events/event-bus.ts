/**
 * An in-process channel of events of one kind, relayed between processes (./process-relay.ts):
 * `publish` reaches this process's listeners and the relays to the other processes; `deliver`
 * (an event another process published) reaches this process's listeners only, so nothing loops
 * back.
 */
type Listener<T> = (event: T) => void;

export class EventBus<T> {
  private readonly listeners = new Set<Listener<T>>();
  private readonly outbound = new Set<Listener<T>>();

  subscribe(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: T): void {
    this.deliver(event);
    for (const relay of this.outbound) relay(event);
  }

  /** Events published in this process, for relaying them to other processes. */
  onLocal(relay: Listener<T>): void {
    this.outbound.add(relay);
  }

  /** An event another process published: to this process's listeners only, never relayed back. */
  deliver(event: T): void {
    for (const listener of this.listeners) listener(event);
  }
}
