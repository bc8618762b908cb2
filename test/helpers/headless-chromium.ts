/**
 * Opening a page in headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: messages are
 * JSON ending in a NUL byte, written to the browser's fd 3 and read from its fd 4). No driver library: the dozen
 * commands the report tests need are a few lines each. Every request the page makes other than the page itself is
 * failed and recorded; console errors, exceptions and log errors are collected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

type Json = Record<string, unknown>;
type Message = { id?: number; method?: string; params?: Json; result?: Json; error?: { message: string } } & {
  sessionId?: string;
};

/** A DevTools protocol connection to a browser started on a pipe. */
class Cdp {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (r: Json) => void; reject: (e: Error) => void }>();
  private readonly listeners: ((m: Message) => void)[] = [];
  private buffer = '';

  constructor(
    private readonly input: Writable,
    output: Readable,
  ) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\0'); end >= 0; end = this.buffer.indexOf('\0')) {
        const message = JSON.parse(this.buffer.slice(0, end)) as Message;
        this.buffer = this.buffer.slice(end + 1);
        this.dispatch(message);
      }
    });
  }

  private dispatch(message: Message): void {
    if (message.id !== undefined) {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result ?? {});
      return;
    }
    for (const listener of this.listeners) listener(message);
  }

  /** Sends a command (to a page's session when given) and resolves to its result. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.next++;
    this.input.write(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }) + '\0');
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Calls `listener` with every event. */
  on(listener: (m: Message) => void): void {
    this.listeners.push(listener);
  }
}

/** What loading a page showed. */
export interface PageVisit {
  /** Console errors, uncaught exceptions and error log entries (a blocked request, a CSP violation). */
  errors: string[];
  /** URLs the page asked for besides itself. */
  requests: string[];
  /** What `evaluate` returned. */
  evaluated: unknown;
  /** Width of the page's content in a 390 px wide phone viewport (more than 390: it scrolls sideways). */
  phoneScrollWidth: number;
  /** Bytes of the page printed to PDF. */
  pdfBytes: number;
  /** What `measure` returned at each width asked for, by width. */
  measured: Record<number, unknown>;
}

/** An expression to evaluate again at other viewport widths (a phone's below 600 px) after the page is seen. */
export interface Measure {
  /** JavaScript that JSON.stringifies what it returns. */
  expression: string;
  /** Viewport widths in CSS pixels. */
  widths: number[];
}

/** The Chromium binary of Debian's package, if installed. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Opens `file` in headless Chromium at 1200 px wide, evaluates `expression` (which JSON.stringifies what it returns),
 * hands a PNG of the whole page to `onScreenshot`, then measures it on a phone, evaluates `measure` at its widths and
 * prints it.
 */
export async function visitPage(
  file: string,
  expression: string,
  onScreenshot: (png: Buffer) => Promise<void>,
  measure: Measure = { expression: '""', widths: [] },
): Promise<PageVisit> {
  const profile = await mkdtemp(join(tmpdir(), 'img-etl-chromium-'));
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe', `--user-data-dir=${profile}`];
  args.push('--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync');
  args.push('--hide-scrollbars', 'about:blank');
  // Its own process group: its helper processes (they write to the profile too) are stopped with it.
  const stdio = ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] as const;
  const browser: ChildProcess = spawn(CHROMIUM, args, { stdio: [...stdio], detached: true });
  let stderr = '';
  browser.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => browser.once('exit', () => resolve()));
  try {
    const cdp = new Cdp(browser.stdio[3] as Writable, browser.stdio[4] as Readable);
    const url = pathToFileURL(file).href;
    const errors: string[] = [];
    const requests: string[] = [];
    let loaded: () => void = () => undefined;
    const load = new Promise<void>((resolve) => (loaded = resolve));
    const { targetId } = (await cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const attached = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    const sessionId = attached['sessionId'] as string;
    const page = (method: string, params: Record<string, unknown> = {}) => cdp.send(method, params, sessionId);
    cdp.on((m) => {
      if (m.sessionId !== sessionId) return;
      const p = m.params ?? {};
      if (m.method === 'Fetch.requestPaused') {
        const request = (p['request'] as { url: string }).url;
        if (request === url) void page('Fetch.continueRequest', { requestId: p['requestId'] });
        else {
          requests.push(request);
          void page('Fetch.failRequest', { requestId: p['requestId'], errorReason: 'BlockedByClient' });
        }
      } else if (m.method === 'Network.requestWillBeSent') {
        const request = (p['request'] as { url: string }).url;
        if (request !== url && !requests.includes(request)) requests.push(request);
      } else if (m.method === 'Runtime.consoleAPICalled' && p['type'] === 'error') {
        errors.push(`console: ${JSON.stringify(p['args'])}`);
      } else if (m.method === 'Runtime.exceptionThrown') {
        errors.push(`exception: ${JSON.stringify(p['exceptionDetails'])}`);
      } else if (m.method === 'Log.entryAdded' && (p['entry'] as { level: string }).level === 'error') {
        errors.push(`log: ${(p['entry'] as { text: string }).text}`);
      } else if (m.method === 'Page.loadEventFired') loaded();
    });
    for (const domain of ['Runtime', 'Log', 'Page', 'Network']) await page(`${domain}.enable`);
    await page('Fetch.enable', { patterns: [{ urlPattern: '*' }] });
    await page('Emulation.setDeviceMetricsOverride', { width: 1200, height: 900, deviceScaleFactor: 1, mobile: false });
    await page('Page.navigate', { url });
    await load;
    const evaluate = async (text: string) => {
      const evaluated = await page('Runtime.evaluate', { expression: text, returnByValue: true });
      return (evaluated['result'] as { value: unknown }).value;
    };
    const result = (await evaluate(expression)) as string;
    const metrics = (await page('Page.getLayoutMetrics')) as { cssContentSize: { height: number } };
    const height = Math.ceil(metrics.cssContentSize.height);
    await page('Emulation.setDeviceMetricsOverride', { width: 1200, height, deviceScaleFactor: 1, mobile: false });
    const shot = await page('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
    await onScreenshot(Buffer.from(shot['data'] as string, 'base64'));
    await page('Emulation.setDeviceMetricsOverride', { width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
    const phoneScrollWidth = (await evaluate('document.documentElement.scrollWidth')) as number;
    const measured: Record<number, unknown> = {};
    for (const width of measure.widths) {
      const mobile = width < 600;
      await page('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile });
      measured[width] = JSON.parse((await evaluate(measure.expression)) as string) as unknown;
    }
    await page('Emulation.clearDeviceMetricsOverride');
    const pdf = (await page('Page.printToPDF', {})) as { data: string };
    await cdp.send('Browser.close').catch(() => undefined);
    return {
      errors,
      requests,
      evaluated: JSON.parse(result) as unknown,
      phoneScrollWidth,
      measured,
      pdfBytes: Buffer.from(pdf.data, 'base64').length,
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`chromium: ${reason}; stderr: ${stderr.slice(-2000)}`, { cause: error });
  } finally {
    if (browser.exitCode === null) browser.kill('SIGKILL');
    await exited;
    await stopGroup(browser.pid);
    await rm(profile, { recursive: true, force: true });
  }
}

/** Stops what is left of a process group (Chromium's helpers) and waits until none of it runs. */
async function stopGroup(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-pid, 'SIGKILL');
  for (let waited = 0; alive() && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
}
