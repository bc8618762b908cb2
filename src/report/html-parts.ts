/** The small HTML parts the report page is made of. */
import { escapeHtml } from './svg-charts.js';

/** A chart under its title, with a caption saying what the numbers are. */
export function figure(title: string, chart: string, caption: string): string {
  return `<figure><h3>${escapeHtml(title)}</h3>${chart}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/** A key figure: its value large, what it counts under it; `tone` is `good`, `bad` or nothing. */
export function kpi(label: string, value: string, tone = ''): string {
  return `<div><b class="${tone}">${escapeHtml(value)}</b>${escapeHtml(label)}</div>`;
}

/** A table of labels and values (text), each row a label and what it says; labels stack over values when narrow. */
export function factTable(rows: [string, string][]): string {
  const cells = rows.map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`);
  return `<table class="facts">${cells.join('')}</table>`;
}
