/**
 * Whether a request's Accept header names a media type itself, with a quality above zero
 * (`image/jxl;q=0` refuses it; a wildcard such as `image/*` does not name it). Parsed by
 * negotiator (RFC 9110's grammar, parameters and quality values), not by searching the text.
 */
import Negotiator from "negotiator";

export function acceptNames(request: Request, mediaType: string): boolean {
  const accept = request.headers.get("accept");
  // Most requests never mention the type: no parse on the page path for them.
  if (!accept?.toLowerCase().includes(mediaType)) return false;
  return new Negotiator({ headers: { accept } }).mediaTypes().some((accepted) => accepted.toLowerCase() === mediaType);
}
