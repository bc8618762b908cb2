/**
 * What the report page looks like at a width, measured in the page (headless-chromium.ts evaluates LAYOUT at each
 * of WIDTHS): the size of every text as drawn, texts wider than their box, chart texts outside their chart or covering
 * another, the run table's labels, JSON in the text, and the labels of the "Records per snapshot" points.
 */

/** A phone's width and a desktop's, in CSS pixels. */
export const WIDTHS = [390, 1280];

/** What LAYOUT returns. */
export interface Layout {
  /** Elements holding text of their own. */
  texts: number;
  /** The smallest text as drawn (an SVG text's size times its chart's scale), in CSS pixels, and its words. */
  smallest: { px: number; text: string };
  /** HTML elements whose text is wider than their box. */
  overflowing: string[];
  /** Chart texts reaching outside their chart (`chart: text`), and pairs of chart texts covering each other. */
  cut: string[];
  covered: string[];
  /** The labels of the page's tables (the run's): box and words' widths, lines, and whether above their values. */
  labels: { text: string; width: number; textWidth: number; lines: number; stacked: boolean }[];
  /** Bits of the page's text that look like JSON (`{"`). */
  json: string[];
  /** The run section's text. */
  run: string;
  /** Each point of the history chart: its snapshot, and whether its label and its value are written in the chart. */
  history: { label: string; labelled: boolean; valued: boolean }[];
  scrollWidth: number;
}

/** JavaScript that returns a Layout, JSON.stringified. */
export const LAYOUT = `JSON.stringify((() => {
  const words = (el) => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60);
  const own = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
  const texts = [...document.body.querySelectorAll('*')].filter((el) => !el.closest('script, title') && own(el));
  const drawn = (el) => {
    const m = el instanceof SVGGraphicsElement ? el.getScreenCTM() : null;
    return parseFloat(getComputedStyle(el).fontSize) * (m === null ? 1 : Math.hypot(m.a, m.b));
  };
  let smallest = { px: Infinity, text: '' };
  for (const el of texts) {
    if (drawn(el) < smallest.px) smallest = { px: Math.round(drawn(el) * 100) / 100, text: words(el) };
  }
  const overflowing = texts
    .filter((el) => !(el instanceof SVGElement) && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
    .map(words);
  const [cut, covered] = [[], []];
  for (const svg of document.querySelectorAll('svg[data-chart]')) {
    const s = svg.getBoundingClientRect();
    const boxes = [...svg.querySelectorAll('text')].map((el) => ({ el, r: el.getBoundingClientRect() }));
    const name = (b) => svg.dataset.chart + ': ' + words(b.el);
    for (const b of boxes) {
      const r = b.r;
      const out = r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5;
      if (out) cut.push(name(b));
    }
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
      const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (x > 1 && y > 1) covered.push(name(a) + ' / ' + name(b));
    }));
  }
  const labels = [...document.querySelectorAll('main table th')].map((th) => {
    const range = document.createRange();
    range.selectNodeContents(th);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    const value = th.nextElementSibling.getBoundingClientRect();
    const box = th.getBoundingClientRect();
    const textWidth = range.getBoundingClientRect().width;
    return { text: words(th), width: box.width, textWidth, lines, stacked: value.top >= box.bottom - 1 };
  });
  const body = document.body.innerText;
  const json = [...body.matchAll(/\\{"/g)].map((m) => body.slice(m.index, m.index + 40));
  const chart = document.querySelector('svg[data-chart="history"]');
  const shown = chart === null ? [] : [...chart.querySelectorAll('text')].map((t) => t.textContent);
  const history = chart === null ? [] : [...chart.querySelectorAll('.pt')].map((p) => ({
    label: p.dataset.label,
    labelled: shown.includes(p.dataset.label),
    valued: shown.includes(Number(p.dataset.value).toLocaleString('en-US')),
  }));
  const run = document.getElementById('run')?.innerText ?? '';
  const scrollWidth = document.documentElement.scrollWidth;
  return { texts: texts.length, smallest, overflowing, cut, covered, labels, json, run, history, scrollWidth };
})())`;
