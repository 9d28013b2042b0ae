/**
 * A book of a format is about to be read (its page or its reader is open): every process of
 * the server gets that format ready (FormatPlugin.warm: 7-Zip's WebAssembly, a PDF worker), for
 * the page requests may reach any of them. `serve --workers N` spreads connections over its
 * processes (SO_REUSEPORT), so the one that answered the book's page is often not the one asked
 * for the first page, which then waited for a cold format (7-Zip compiled, pdf.js loaded) that
 * the other process had ready. Relayed between the processes of one server only (over IPC):
 * another instance serves other people, and would only hold a runtime it may never use.
 */
import { EventBus } from "./event-bus";

export interface ReadingPreparation {
  /** The format's id (FormatPlugin.id). */
  format: string;
}

export class ReadingPreparationEvents extends EventBus<ReadingPreparation> {}
