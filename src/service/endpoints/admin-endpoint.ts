/**
 * `POST /admin/change?kind=…&collections=K&seed=S`: the admin's door to the changes between runs (admin-change.ts),
 * routed only when the service was started with `admin`. Not part of NeuroVault: answers plain JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyChange, type ChangeKind } from '../dataset/admin-change.js';
import { lastValue, parseQueryString } from '../http/query-params.js';
import { send } from '../http/respond.js';
import type { ServiceContext } from '../service-context.js';

/** Whether the decoded path is the admin endpoint's (with or without its trailing slash). */
export function isAdminPath(path: string): boolean {
  return path === '/admin/change' || path === '/admin/change/';
}

/** Applies the change the query asks for and answers what changed; 400 in one line for a bad query, 405 but POST. */
export function serveAdmin(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse, rawQuery: string): void {
  if (req.method !== 'POST') return answer(ctx, res, 405, { detail: `Method "${req.method}" not allowed.` }, 'POST');
  const pairs = parseQueryString(rawQuery);
  const number = (name: string) => {
    const text = lastValue(pairs, name);
    return text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  };
  try {
    const kind = (lastValue(pairs, 'kind') ?? '') as ChangeKind;
    const result = applyChange(ctx.dataset, { kind, collections: number('collections'), seed: number('seed') });
    answer(ctx, res, 200, result);
  } catch (err) {
    answer(ctx, res, 400, { detail: (err as Error).message });
  }
}

function answer(ctx: ServiceContext, res: ServerResponse, status: number, body: unknown, allow?: string): void {
  send(ctx, res, status, 'application/json', JSON.stringify(body), allow === undefined ? {} : { Allow: allow });
}
