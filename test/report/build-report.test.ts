/**
 * What the report takes from the manifest when other work adds it (optional-inputs.ts): the completeness proof and
 * requests per endpoint are shown when present, and the page says when they are not; the proof in words, never as JSON.
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report.js';
import { renderReportHtml } from '../../src/report/render-report-html.js';
import { ReportStats } from '../../src/report/report-stats.js';

const manifest = {
  source_url: 'http://127.0.0.1:8000/api/images/',
  started_at: '2026-11-23T03:17:00.000Z',
  finished_at: '2026-11-23T03:47:00.000Z',
  complete: true,
  passes: [{ pass: 1 }],
  pages_fetched: 560,
};

describe('the run section', () => {
  it('shows the requests per endpoint and the completeness proof when the manifest has them', () => {
    const proof = { count: 559182, ids: 559182 };
    const requests = { '/api/images/': 560, '/api/images/<id>/': 20 };
    const data = buildReport(new ReportStats().gathered(), {
      source: 'run',
      manifest: { ...manifest, completeness: proof, requests },
    });
    expect(data.run).toMatchObject({
      completeness_proof: proof,
      requests_per_endpoint: requests,
      duration_seconds: 1800,
    });
    const html = renderReportHtml(data, 'x');
    expect(html).toContain('data-chart="run-requests"');
    expect(html).toContain('data-label="/api/images/&#60;id&#62;/" data-value="20"');
    expect(html).not.toContain('{&#34;count&#34;');
    expect(html).toContain('<th scope="row">proof</th><td>in a form this report does not know: see report.json</td>');
  });

  it('says when the manifest has neither', () => {
    const data = buildReport(new ReportStats().gathered(), { source: 'run', manifest });
    expect(data.run).toMatchObject({ completeness_proof: null, requests_per_endpoint: null });
    const html = renderReportHtml(data, 'x');
    expect(html).not.toContain('data-chart="run-requests"');
    expect(html).toContain('Requests per endpoint are not in this manifest; 560 pages of the list fetched.');
    expect(html).toContain('<th scope="row">proof</th><td>not in this manifest</td>');
  });
});
