/** The browsable API page (`format=api`, or a browser's Accept): the response shown as indented, escaped JSON. */
import { indentJson } from '../../text/python-json.js';

/** What the page shows. */
export interface BrowsablePageContent {
  /** View name, e.g. "Image List". */
  title: string;
  /** Status line, e.g. "200 OK". */
  status: string;
  /** Headers of the JSON response, in display order. */
  headers: readonly (readonly [string, string])[];
  /** Compact JSON body of the JSON response. */
  json: string;
  /** The request path and query, for the breadcrumb and the format links. */
  requestPath: string;
}

/** The HTML of a browsable API page in the layout of DRF's `rest_framework/api.html`. */
export function browsablePage(content: BrowsablePageContent): string {
  const title = escapeHtml(content.title);
  const headerLines = content.headers
    .map(([name, value]) => `<b>${escapeHtml(name)}:</b> <span class="lit">${escapeHtml(value)}</span>`)
    .join('\n');
  return `<!DOCTYPE html>
<html>
  <head>
    <meta http-equiv="Content-Type" content="text/html; charset=utf-8"/>
    <meta name="robots" content="NONE,NOARCHIVE" />
    <title>${title} – Django REST framework</title>
  </head>
  <body class="">
    <div class="wrapper">
      <div class="container">
        <ul class="breadcrumb"><li class="active"><a href="${escapeHtml(content.requestPath)}">${title}</a></li></ul>
        <div class="content-main" role="main" aria-label="main content">
          <div class="page-header"><h1>${title}</h1></div>
          <div class="request-info" style="clear: both" aria-label="request info">
            <pre class="prettyprint"><b>GET</b> ${escapeHtml(content.requestPath)}</pre>
          </div>
          <div class="response-info" aria-label="response info">
            <pre class="prettyprint"><span class="meta nocode"><b>HTTP ${escapeHtml(content.status)}</b>
${headerLines}

</span>${escapeHtml(indentJson(content.json))}</pre>
          </div>
        </div>
      </div>
    </div>
  </body>
</html>
`;
}

/** Escapes text for HTML element content and attribute values, as Django's `escape` does. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] as string);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };
