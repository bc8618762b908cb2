/** DRF's DefaultContentNegotiation for a view with JSONRenderer and BrowsableAPIRenderer. */

/** The two renderers of the list, in DRF's order: JSON first. */
export type RendererName = 'json' | 'api';

const RENDERERS: readonly { format: RendererName; mainType: string; subType: string }[] = [
  { format: 'json', mainType: 'application', subType: 'json' },
  { format: 'api', mainType: 'text', subType: 'html' },
];

/**
 * The chosen renderer, or the status DRF answers: 404 for an unknown format, 406 for an Accept header no renderer
 * satisfies.
 */
export type Negotiated = { renderer: RendererName } | { status: 404 | 406 };

/**
 * Picks the renderer like `select_renderer`: a format (URL suffix, else the `format` parameter)
 * narrows the renderers, then Accept media types are tried most specific first, renderers in order.
 */
export function negotiate(format: string | undefined, accept: string | undefined): Negotiated {
  const renderers = format ? RENDERERS.filter((r) => r.format === format) : RENDERERS;
  if (renderers.length === 0) return { status: 404 };
  const accepted = (accept ?? '*/*').split(',').map(parseMediaType);
  for (const precedence of [3, 2, 1, 0]) {
    const group = accepted.filter((m) => m.precedence === precedence);
    for (const renderer of renderers) {
      if (group.some((m) => matches(renderer, m))) return { renderer: renderer.format };
    }
  }
  return { status: 406 };
}

interface MediaType {
  mainType: string;
  subType: string;
  precedence: number;
}

function parseMediaType(text: string): MediaType {
  const [fullType = '', ...params] = text.split(';');
  const [mainType = '', subType = ''] = fullType.trim().toLowerCase().split('/', 2);
  const paramKeys = params.map((p) => (p.split('=')[0] ?? '').trim().toLowerCase()).filter((k) => k !== '');
  let precedence = 3;
  if (mainType === '*') precedence = 0;
  else if (subType === '*') precedence = 1;
  else if (paramKeys.length === 0 || (paramKeys.length === 1 && paramKeys[0] === 'q')) precedence = 2;
  return { mainType, subType, precedence };
}

function matches(renderer: { mainType: string; subType: string }, accepted: MediaType): boolean {
  if (renderer.subType !== accepted.subType && accepted.subType !== '*') return false;
  if (renderer.mainType !== accepted.mainType && accepted.mainType !== '*') return false;
  return true;
}
