/** The body of a LimitOffsetPagination page, encoded straight into bytes. */
import { BodyWriter } from './body-writer.js';
import { pageLinks, pageWindow, requestedPage } from './pagination.js';
import { jsonNullableString } from '../../text/python-json.js';
import type { ViewRequest } from './serve-view.js';

/** A LimitOffsetPagination page of `count` items, each item's JSON from `item(index)` (undefined: left out). */
export function pageBody(
  request: ViewRequest,
  count: number,
  item: (index: number) => string | undefined,
): { json: Buffer; items: number } {
  const { limit, offset } = requestedPage(request.pairs);
  const window = pageWindow(count, limit, offset);
  const links = pageLinks(`${request.origin}${request.path}`, request.pairs, window);
  const body = new BodyWriter(64 + (window.end - window.start) * 2048);
  const next = jsonNullableString(links.next);
  body.write(`{"count":${count},"next":${next},"previous":${jsonNullableString(links.previous)},"results":[`);
  let items = 0;
  for (let i = window.start; i < window.end; i++) {
    const json = item(i);
    if (json === undefined) continue;
    if (items > 0) body.write(',');
    body.write(json);
    items++;
  }
  body.write(']}');
  return { json: body.bytes(), items };
}
