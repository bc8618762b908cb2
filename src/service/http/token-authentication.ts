/**
 * DRF's TokenAuthentication, NeuroVault's only authentication class: a request whose Authorization header uses the
 * `Token` keyword must carry a key the service issued, or every API view refuses it (401) before its handler runs.
 * Other schemes, and no header, are anonymous. Media files, redirects and Django's 404 never reach it.
 */

/** The `WWW-Authenticate` challenge of a 401 (`TokenAuthentication.authenticate_header`). */
export const TOKEN_CHALLENGE = 'Token';

/**
 * `TokenAuthentication.authenticate`: undefined when the request is anonymous or its key is one of `issued`, else the
 * detail of the AuthenticationFailed it raises. The header is read as bytes (latin-1) and split on ASCII whitespace.
 */
export function authenticationFailure(header: string | undefined, issued: ReadonlySet<string>): string | undefined {
  const parts = (header ?? '').split(/[ \t\n\r\v\f]+/).filter((part) => part !== '');
  if (parts.length === 0 || (parts[0] as string).toLowerCase() !== 'token') return undefined;
  if (parts.length === 1) return 'Invalid token header. No credentials provided.';
  if (parts.length > 2) return 'Invalid token header. Token string should not contain spaces.';
  let key: string;
  try {
    key = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(parts[1] as string, 'latin1'));
  } catch {
    return 'Invalid token header. Token string should not contain invalid characters.';
  }
  return issued.has(key) ? undefined : 'Invalid token.';
}
