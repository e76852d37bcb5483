/** Secrets out of what perflow prints: connection strings and URLs in logs, errors and start lines. */

/** Query parameters that carry secrets (tokens, keys, signatures, passwords). */
const SECRET_PARAM = /token|secret|passw(or)?d|^pwd$|api[-_]?key|^key$|access[-_]?key|signature|^sig$|credential|^auth$|authorization|session/i;

/**
 * A URI or connection string as perflow prints it: the password of its user info, a bare user
 * info of an http(s) URL (a token), and the values of secret query parameters replaced by `***`.
 */
export function redact(uri: string): string {
  const masked = uri
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)([^:/@\s]+):[^@/\s]*@/i, '$1$2:***@')
    .replace(/^(https?:\/\/)[^:/@\s]+@/i, '$1***@');
  return masked.replace(/([?&])([^=&#\s]+)=([^&#\s]*)/g, (whole, sep: string, name: string) => (SECRET_PARAM.test(decodeURIComponentSafe(name)) ? `${sep}${name}=***` : whole));
}

/** Every URL in a text (an error message, a log line), {@link redact}ed. */
export const redactUrls = (text: string): string => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => redact(url));

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
