/**
 * A scripted `/api/images/` over real loopback HTTP for the situations the bundled service has no knob for: records a
 * test makes up (bad ids, changed copies, oversized pages), a `count` that lies, pages that fail on cue.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fixtureRecords } from './fixture-records.js';
import { sendJson, startScriptedServer, type ScriptedServer } from './scripted-server.js';

/** `n` valid records made from the real fixture records, ids `first`, `first + 1`, …, each with its own url. */
export function madeRecords(n: number, first = 1_000_000): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const id = first + i;
    return {
      ...fixtureRecords[i % fixtureRecords.length]!,
      id,
      url: `https://neurovault.org/images/${id}/`,
      name: `made ${id}`,
    };
  });
}

/** What the list answers: the records of a request (by its offset, limit and how often that offset was asked). */
export interface ListScript {
  /** The records listed for this request; default the fixed `records` given to startListServer. */
  records?: (offset: number, asked: number) => readonly unknown[];
  /** `count` to report; default the length of the listed records. */
  count?: number | ((offset: number, asked: number) => number);
  /** A status to answer instead of a page (e.g. 404 to stop a run there). */
  fail?: (offset: number, asked: number) => number | undefined;
  /** Answers a request outside /api/ (the files the records link to); default DRF's 404. */
  other?: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Serves `records` (or the script's) with DRF's LimitOffsetPagination envelope; `asked` counts requests per offset from
 * 1.
 */
export async function startListServer(records: readonly unknown[], script: ListScript = {}): Promise<ScriptedServer> {
  const asked = new Map<number, number>();
  return startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (!url.pathname.startsWith('/api/') && script.other !== undefined) return script.other(req, res);
    // The image list alone, as a copy of it would be: no collection endpoints (the client then pages the list only).
    if (!url.pathname.startsWith('/api/images/')) return sendJson(res, { detail: 'Not found.' }, 404);
    const detail = /^\/api\/images\/(\d+)\/$/.exec(url.pathname);
    if (detail !== null) {
      // The record as the list serves it now (its first request's view), or DRF's 404.
      const listed = (script.records?.(0, 1) ?? records).find(
        (r) => (r as { id?: unknown } | null)?.id === Number(detail[1]),
      );
      return listed === undefined ? sendJson(res, { detail: 'Not found.' }, 404) : sendJson(res, listed);
    }
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const n = (asked.get(offset) ?? 0) + 1;
    asked.set(offset, n);
    const status = script.fail?.(offset, n);
    if (status !== undefined) return sendJson(res, { detail: 'scripted failure' }, status);
    const all = script.records?.(offset, n) ?? records;
    const count = typeof script.count === 'function' ? script.count(offset, n) : (script.count ?? all.length);
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < count ? `${origin}/api/images/?limit=${limit}&offset=${offset + limit}` : null;
    sendJson(res, { count, next, previous: null, results: page });
  });
}
