/** Bodies of the non-JSON error responses: Django's own pages and the proxy's. */

/** Django's fallback error page (`django.views.defaults.ERROR_PAGE_TEMPLATE`). */
function djangoPage(title: string, details: string): string {
  return `
<!doctype html>
<html lang="en">
<head>
  <title>${title}</title>
</head>
<body>
  <h1>${title}</h1><p>${details}</p>
</body>
</html>
`;
}

/** Django's 500 page, sent when a view raises (DEBUG off, no 500.html). */
export const DJANGO_SERVER_ERROR = djangoPage('Server Error (500)', '');

/** Django's 403 page, sent when a plain Django view raises PermissionDenied. */
export const DJANGO_FORBIDDEN = djangoPage('403 Forbidden', '');

/** Django's 404 page for a path no URL pattern matches. */
export const DJANGO_NOT_FOUND = djangoPage('Not Found', 'The requested resource was not found on this server.');

/** nginx's error page for a status line; Cloudflare's proxy serves the same layout signed `cloudflare`. */
export function nginxPage(title: string, server = 'nginx'): string {
  return (
    `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n` +
    `<hr><center>${server}</center>\r\n</body>\r\n</html>\r\n`
  );
}

/** The proxy's page for a 502 or 504. */
export function proxyErrorPage(status: 502 | 504): string {
  return nginxPage(status === 502 ? '502 Bad Gateway' : '504 Gateway Time-out', 'cloudflare');
}

/** DRF's 429 detail. */
export function throttledDetail(seconds: number): string {
  return JSON.stringify({
    detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
  });
}
